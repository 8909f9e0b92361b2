/**
 * Concurrent writers and read-your-writes (DESIGN §3): uniqueness holds under parallel creates,
 * parallel plan changes on one group converge, the allocation ledger never loses or invents bytes,
 * no update is lost, and a write is visible on every gateway as soon as it is answered.
 */
import type { Plan, UserRecord } from '@burrow/contracts';
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { createPartner, type PartnerApi, partnerApi } from '../harness/client.js';
import {
  assertConflict,
  assertError,
  createGroup,
  createUser,
  eventually,
  GB,
  getUser,
  knownPlans,
  settledGroup,
  unique,
} from './accounts-fixtures.js';
import type { ScenarioContext } from './scenarios.js';

export function concurrencyScenarios({ target }: ScenarioContext) {
  /** Partner APIs on every gateway, so parallel requests spread over the replicas. */
  const spread = (credentials = target().partner) => target().urls.map((url) => partnerApi(target(), url, credentials));
  const api = () => partnerApi(target());

  /** bytes_allocated must equal plan + bonus summed over the partner's users. */
  async function assertLedgerMatchesUsers(p: PartnerApi, plans: Plan[]) {
    const users = (await p.get('/users/').expect(200)).body as UserRecord[];
    const sum = users.reduce(
      (s, u) => s + plans.find((x) => x.plan_id === u.plan_id)!.storage_bytes + u.bonus_bytes,
      0,
    );
    assert.equal((await p.get('/partner/quota').expect(200)).body.bytes_allocated, sum);
  }

  it('50 parallel POST /groups/ with one name: exactly one 201, 49 x 409 ["name"]', async () => {
    const plans = await knownPlans(api());
    const apis = spread();
    await Promise.all(apis.map((p) => p.get('/ping').expect(200)));
    const name = unique('race');
    const results = await Promise.all(
      Array.from({ length: 50 }, (_, i) =>
        apis[i % apis.length].post('/groups/', { name, plan_id: plans.small.plan_id }),
      ),
    );
    const created = results.filter((r) => r.status === 201);
    assert.equal(created.length, 1, `statuses: ${results.map((r) => r.status).join(',')}`);
    for (const r of results.filter((x) => x.status !== 201)) assertConflict(r, 'name');
    const listed = (await api().get(`/groups/?search=${name}`).expect(200)).body as { group_id: number }[];
    assert.deepEqual(
      listed.map((g) => g.group_id),
      [created[0].body.group_id],
    );
  });

  it('parallel plan changes on one group leave every member on the group plan and the ledger exact', async () => {
    const plans = await knownPlans(api());
    const { api: p, credentials } = await createPartner(target());
    const apis = spread(credentials);
    const g = await createGroup(p, { name: unique('plans'), plan_id: plans.small.plan_id });
    const members = await Promise.all(
      Array.from({ length: 6 }, (_, i) => createUser(p, { group_id: g.group_id, bonus_bytes: i * 1000 })),
    );
    const choices = [plans.small, plans.medium, plans.large, plans.promo];
    for (let round = 0; round < 4; round++) {
      const results = await Promise.all(
        Array.from({ length: 12 }, (_, i) =>
          apis[i % apis.length].post(`/groups/${g.group_id}`, {
            plan_id: choices[(i + round) % choices.length].plan_id,
          }),
        ),
      );
      for (const r of results) assert.equal(r.status, 200, r.text);
      const final = (await settledGroup(p, g.group_id)).plan_id;
      await eventually(async () => {
        const listed = (await p.get(`/users/?group_id=${g.group_id}`).expect(200)).body as UserRecord[];
        assert.equal(listed.length, members.length);
        for (const u of listed)
          assert.equal(u.plan_id, final, `round ${round}: ${u.username} on ${u.plan_id}, group on ${final}`);
      });
      await assertLedgerMatchesUsers(p, plans.all);
    }
    // a change racing a request that names the plan the group has right now
    for (let round = 0; round < 8; round++) {
      const current = (await p.get(`/groups/${g.group_id}`).expect(200)).body.plan_id as number;
      const next = choices.find((c) => c.plan_id !== current)!.plan_id;
      const results = await Promise.all([
        apis[0].post(`/groups/${g.group_id}`, { plan_id: next }),
        new Promise((r) => setTimeout(r, round % 4)).then(() =>
          apis[apis.length - 1].post(`/groups/${g.group_id}`, { plan_id: current }),
        ),
      ]);
      for (const r of results) assert.equal(r.status, 200, r.text);
      const final = (await settledGroup(p, g.group_id)).plan_id;
      await eventually(async () => {
        const listed = (await p.get(`/users/?group_id=${g.group_id}`).expect(200)).body as UserRecord[];
        for (const u of listed)
          assert.equal(u.plan_id, final, `pair ${round}: ${u.username} on ${u.plan_id}, group on ${final}`);
      });
    }
    await assertLedgerMatchesUsers(p, plans.all);
  });

  it('users created in or moved into a group while its plan changes end on the group plan', async () => {
    const plans = await knownPlans(api());
    const { api: p, credentials } = await createPartner(target());
    const apis = spread(credentials);
    await Promise.all(apis.map((x) => x.get('/ping').expect(200)));
    const choices = [plans.small, plans.medium, plans.large];
    for (let round = 0; round < 3; round++) {
      const g = await createGroup(p, { name: unique('moving'), plan_id: plans.small.plan_id });
      const outsiders = await Promise.all([1, 2, 3].map(() => createUser(p, { plan_id: plans.promo.plan_id })));
      const joins = outsiders.map((u, i) =>
        apis[i % apis.length].post(`/users/${u.username}`, { group_id: g.group_id }),
      );
      const creates = Array.from({ length: 6 }, (_, i) => {
        const username = unique(`mv${i}`);
        return apis[i % apis.length].post('/users/', {
          username,
          name: 'M',
          email: `${username}@example.com`,
          password: 'user-password-1',
          group_id: g.group_id,
        });
      });
      // plan changes land while the creates hash their passwords and the joins are written
      const changes = [1, 2, 3, 4].map((k) =>
        new Promise((r) => setTimeout(r, 15 * k)).then(() =>
          apis[k % apis.length].post(`/groups/${g.group_id}`, { plan_id: choices[(k + round) % 3].plan_id }),
        ),
      );
      const results = await Promise.all([...joins, ...creates, ...changes]);
      for (const r of results) assert.ok(r.status === 200 || r.status === 201, `${r.status} ${r.text}`);
      const final = (await settledGroup(p, g.group_id)).plan_id;
      await eventually(async () => {
        const listed = (await p.get(`/users/?group_id=${g.group_id}`).expect(200)).body as UserRecord[];
        assert.equal(listed.length, 9);
        for (const u of listed)
          assert.equal(u.plan_id, final, `round ${round}: ${u.username} on ${u.plan_id}, group on ${final}`);
      });
      await assertLedgerMatchesUsers(p, plans.all);
    }
  });

  it('20 parallel user creates with one email (any case): exactly one 201, the rest 409 ["email"]', async () => {
    const apis = spread();
    await Promise.all(apis.map((p) => p.get('/ping').expect(200)));
    const local = unique('same');
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        apis[i % apis.length].post('/users/', {
          username: `${local}-${i}`,
          name: `Racer ${i}`,
          email: i % 2 ? `${local}@example.com` : `${local.toUpperCase()}@EXAMPLE.com`,
          password: 'user-password-1',
        }),
      ),
    );
    const created = results.filter((r) => r.status === 201);
    assert.equal(created.length, 1, `statuses: ${results.map((r) => r.status).join(',')}`);
    for (const r of results.filter((x) => x.status !== 201)) assertConflict(r, 'email');
    assert.deepEqual((await api().get(`/users/?action=user_count&search=${local}`).expect(200)).body, {
      user_count: 1,
    });
    // the losers' usernames were released
    const loser = results.findIndex((r) => r.status === 409);
    await createUser(api(), { username: `${local}-${loser}` });
  });

  it('parallel creates against a limited partner never allocate more than bytes_available', async () => {
    const plans = await knownPlans(api());
    const available = 5 * plans.small.storage_bytes + plans.small.storage_bytes / 2;
    const { api: p, credentials } = await createPartner(target(), { bytes_available: available });
    const apis = spread(credentials);
    await Promise.all(apis.map((x) => x.get('/ping').expect(200)));
    const results = await Promise.all(
      Array.from({ length: 10 }, (_, i) => {
        const username = unique(`lim${i}`);
        return apis[i % apis.length].post('/users/', {
          username,
          name: 'L',
          email: `${username}@example.com`,
          plan_id: plans.small.plan_id,
          password: 'user-password-1',
        });
      }),
    );
    assert.equal(
      results.filter((r) => r.status === 201).length,
      5,
      `statuses: ${results.map((r) => r.status).join(',')}`,
    );
    for (const r of results.filter((x) => x.status !== 201)) assertError(r, 402);
    const quota = (await p.get('/partner/quota').expect(200)).body;
    assert.equal(quota.bytes_allocated, 5 * plans.small.storage_bytes);
    assert.deepEqual((await p.get('/users/?action=user_count').expect(200)).body, { user_count: 5 });
    // parallel bonus raises: only what fits is granted
    const users = ((await p.get('/users/').expect(200)).body as UserRecord[]).map((u) => u.username);
    const raises = await Promise.all(
      users.map((u, i) => apis[i % apis.length].post(`/users/${u}`, { bonus_gigs: 20 })),
    );
    const granted = raises.filter((r) => r.status === 200).length;
    assert.equal(granted, 2, `statuses: ${raises.map((r) => r.status).join(',')}`);
    for (const r of raises.filter((x) => x.status !== 200)) assertError(r, 402);
    assert.equal(
      (await p.get('/partner/quota').expect(200)).body.bytes_allocated,
      5 * plans.small.storage_bytes + 40 * GB,
    );
    await assertLedgerMatchesUsers(p, plans.all);
  });

  it('parallel edits of different attributes of one user all survive (no lost update)', async () => {
    const plans = await knownPlans(api());
    const apis = spread();
    const g = await createGroup(api(), { name: unique('lu'), plan_id: plans.medium.plan_id });
    for (let round = 0; round < 3; round++) {
      const u = await createUser(api(), { plan_id: plans.small.plan_id });
      const email = `${unique('moved')}@example.com`;
      const edits: Record<string, unknown>[] = [
        { name: 'New Name' },
        { email },
        { bonus_bytes: 4242 },
        { enabled: false },
        { purgehold_active: true },
        { group_id: g.group_id, plan_id: plans.large.plan_id },
      ];
      const results = await Promise.all(edits.map((e, i) => apis[i % apis.length].post(`/users/${u.username}`, e)));
      for (const r of results) assert.equal(r.status, 200, r.text);
      const rec = await getUser(api(), u.username);
      assert.deepEqual(
        {
          name: rec.name,
          email: rec.email,
          bonus_bytes: rec.bonus_bytes,
          enabled: rec.enabled,
          purgehold_active: rec.purgehold_active,
          group_id: rec.group_id,
          plan_id: rec.plan_id,
        },
        {
          name: 'New Name',
          email,
          bonus_bytes: 4242,
          enabled: false,
          purgehold_active: true,
          group_id: g.group_id,
          plan_id: plans.large.plan_id,
        },
      );
    }
    // concurrent bonus changes on many users of one partner keep the ledger exact
    const { api: p, credentials } = await createPartner(target());
    const many = await Promise.all(Array.from({ length: 8 }, () => createUser(p, { plan_id: plans.small.plan_id })));
    const ps = spread(credentials);
    await Promise.all(
      many.flatMap((u, i) => [
        ps[i % ps.length].post(`/users/${u.username}`, { bonus_bytes: i + 1 }),
        ps[(i + 1) % ps.length].post(`/users/${u.username}`, { plan_id: plans.medium.plan_id }),
      ]),
    );
    await assertLedgerMatchesUsers(p, plans.all);
  });

  it('users deleted while their plan or bonus changes leave the ledger exact', async () => {
    const plans = await knownPlans(api());
    const { api: p, credentials } = await createPartner(target());
    const apis = spread(credentials);
    const keep = await createUser(p, { plan_id: plans.medium.plan_id, bonus_bytes: 5 });
    for (let round = 0; round < 2; round++) {
      const victims = await Promise.all(
        Array.from({ length: 16 }, () => createUser(p, { plan_id: plans.small.plan_id })),
      );
      const results = await Promise.all(
        victims.flatMap((u, i) => [
          apis[i % apis.length].post(
            `/users/${u.username}`,
            i % 2 ? { plan_id: plans.large.plan_id } : { bonus_gigs: 7 },
          ),
          new Promise((r) => setTimeout(r, i % 3)).then(() =>
            apis[(i + 1) % apis.length].delete(`/users/${u.username}`),
          ),
        ]),
      );
      for (const [i, r] of results.entries()) {
        // an edit may lose to the delete (404); the delete always wins
        if (i % 2) assert.equal(r.status, 200, r.text);
        else assert.ok(r.status === 200 || r.status === 404, `${r.status} ${r.text}`);
      }
      assert.deepEqual(
        ((await p.get('/users/').expect(200)).body as UserRecord[]).map((u) => u.username),
        [keep.username],
      );
      assert.equal(
        (await p.get('/partner/quota').expect(200)).body.bytes_allocated,
        plans.medium.storage_bytes + 5,
        `round ${round}`,
      );
    }
  });

  it('read-your-writes: what one gateway answered, the other shows at once (group, user, settings, deletes)', async () => {
    const plans = await knownPlans(api());
    const [first, ...rest] = spread();
    const last = rest.length ? rest[rest.length - 1] : first;
    for (let i = 0; i < 5; i++) {
      const created = await first.post('/groups/', { name: unique('ryw'), plan_id: plans.small.plan_id });
      assert.equal(created.status, 201);
      assert.deepEqual((await last.get(created.headers.location).expect(200)).body, created.body);
      await first
        .post(`/groups/${created.body.group_id}`, { name: `${created.body.name}-x`, plan_id: plans.medium.plan_id })
        .expect(200);
      const g = (await last.get(`/groups/${created.body.group_id}`).expect(200)).body;
      assert.equal(g.name, `${created.body.name}-x`);
      assert.equal(g.plan_id, plans.medium.plan_id);

      const username = unique('ryw');
      const u = await first.post('/users/', {
        username,
        name: 'RYW',
        email: `${username}@example.com`,
        password: 'user-password-1',
        group_id: g.group_id,
      });
      assert.equal(u.status, 201, u.text);
      assert.deepEqual((await last.get(`/users/${username}`).expect(200)).body, u.body.user);
      assert.ok(
        ((await last.get(`/users/?group_id=${g.group_id}`).expect(200)).body as UserRecord[]).some(
          (x) => x.username === username,
        ),
      );
      await first.post(`/users/${username}`, { bonus_bytes: 99 }).expect(200);
      assert.equal((await last.get(`/users/${username}`).expect(200)).body.bonus_bytes, 99);

      await first.post('/partner/settings', { share_link_ttl: 100 + i }).expect(200);
      assert.equal((await last.get('/partner/settings').expect(200)).body.share_link_ttl, 100 + i);

      await first.delete(`/users/${username}`).expect(200);
      assertError(await last.get(`/users/${username}`), 404);
      await first.delete(`/groups/${g.group_id}`).expect(200);
      assertError(await last.get(`/groups/${g.group_id}`), 404);
    }
  });
}
