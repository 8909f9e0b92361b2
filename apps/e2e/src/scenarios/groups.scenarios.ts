/**
 * Groups (spec §2A, §4A rules 1, 2 and 4, every groups row of the §7 error table) and the lenient
 * request bodies of interface A (CLIENT-FACTS transport).
 */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { createPartner, partnerApi } from '../harness/client.js';
import {
  assertBadFields,
  assertConflict,
  assertEmptyOrJson,
  assertError,
  createGroup,
  createUser,
  eventually,
  GB,
  getUser,
  knownPlans,
  settledGroup,
  StorageEvents,
  unique,
} from './accounts-fixtures.js';
import type { ScenarioContext } from './scenarios.js';

export function groupsScenarios({ target }: ScenarioContext) {
  const api = () => partnerApi(target());

  for (const base of ['', '/apis/accounts/v1']) {
    it(`POST ${base}/groups/ answers 201 with Location ending in /<group_id> (no trailing slash, no query)`, async () => {
      const plans = await knownPlans(api());
      const name = unique('grp');
      const res = await api().post(`${base}/groups/`, {
        name,
        plan_id: plans.medium.plan_id,
        webapi_enable: false,
        check_domain: true,
      });
      assert.equal(res.status, 201, res.text);
      const location = res.headers.location;
      assert.match(location, new RegExp(`^(https?://[^/]+)?${base}/groups/\\d+$`));
      assert.ok(!location.includes('?') && !location.endsWith('/'));
      const id = Number(location.split('/').pop());
      assert.deepEqual(res.body, {
        group_id: id,
        name,
        plan_id: plans.medium.plan_id,
        webapi_enable: false,
        check_domain: true,
        device_policy: null,
        plan_status: 'current',
      });
      // the Location is the group's address
      const got = await api()
        .get(location.replace(/^https?:\/\/[^/]+/, ''))
        .expect(200);
      assert.deepEqual(got.body, res.body);
    });
  }

  it('POST /groups (no trailing slash) creates too, with defaults webapi_enable=true, check_domain=false', async () => {
    const plans = await knownPlans(api());
    const res = await api().post('/groups', { name: unique('grp'), plan_id: plans.small.plan_id });
    assert.equal(res.status, 201, res.text);
    assert.match(res.headers.location, /\/groups\/\d+$/);
    assert.equal(res.body.webapi_enable, true);
    assert.equal(res.body.check_domain, false);
    assert.equal(res.body.device_policy, null);
  });

  it('POST /groups/ with invalid parameters is 400 naming every bad field', async () => {
    const plans = await knownPlans(api());
    assertBadFields(await api().post('/groups/', { plan_id: plans.small.plan_id }), ['name']);
    assertBadFields(await api().post('/groups/', { name: unique('grp') }), ['plan_id']);
    assertBadFields(await api().post('/groups/', { name: '', plan_id: 'x', webapi_enable: 'maybe', check_domain: 7 }), [
      'name',
      'plan_id',
      'webapi_enable',
      'check_domain',
    ]);
    assertBadFields(await api().post('/groups/', { name: 'x'.repeat(256), plan_id: plans.small.plan_id }), ['name']);
    assertError(await api().post('/groups/', ['not', 'an', 'object']), 400);
    assertError(await api().post('/groups/', 'a string'), 400);
    assertError(await api().post('/groups/'), 400);
    // nothing was created by the refused requests
    const all = (await api().get('/groups/').expect(200)).body as { name: string }[];
    assert.ok(!all.some((g) => g.name === '' || g.name.length > 255));
  });

  it('POST /groups/ naming a nonexistent plan is 409 with conflicts ["plan_id"]', async () => {
    const name = unique('grp');
    assertConflict(await api().post('/groups/', { name, plan_id: 999_999 }), 'plan_id');
    // the name was not kept reserved by the refused create
    const plans = await knownPlans(api());
    await createGroup(api(), { name, plan_id: plans.small.plan_id });
  });

  it('POST /groups/ with a name in use (any case) is 409 with conflicts ["name"]', async () => {
    const plans = await knownPlans(api());
    const name = unique('Dup');
    await createGroup(api(), { name, plan_id: plans.small.plan_id });
    assertConflict(await api().post('/groups/', { name, plan_id: plans.small.plan_id }), 'name');
    assertConflict(await api().post('/groups/', { name: name.toUpperCase(), plan_id: plans.medium.plan_id }), 'name');
    const matching = (await api().get(`/groups/?search=${name}`).expect(200)).body as unknown[];
    assert.equal(matching.length, 1);
  });

  it('GET /groups/ lists groups with every field; search matches name substrings case-insensitively', async () => {
    const plans = await knownPlans(api());
    const stem = unique('srch');
    const a = await createGroup(api(), { name: `${stem}-Alpha`, plan_id: plans.small.plan_id });
    const b = await createGroup(api(), { name: `${stem}-beta`, plan_id: plans.medium.plan_id, check_domain: true });
    const other = await createGroup(api(), { name: unique('zzz'), plan_id: plans.small.plan_id });
    const all = (await api().get('/groups/').expect(200)).body as { group_id: number }[];
    for (const g of [a, b, other])
      assert.deepEqual(
        all.find((x) => x.group_id === g.group_id),
        g,
      );
    assert.deepEqual((await api().get(`/groups/?search=${stem}`).expect(200)).body, [a, b]);
    assert.deepEqual((await api().get(`/groups/?search=${stem.toUpperCase()}-ALPHA`).expect(200)).body, [a]);
    assert.deepEqual((await api().get('/groups/?search=no-such-group-name-anywhere').expect(200)).body, []);
  });

  it('GET /groups/<id> is 200 with the group, 404 for an unknown or malformed id', async () => {
    const plans = await knownPlans(api());
    const g = await createGroup(api(), { name: unique('grp'), plan_id: plans.large.plan_id, webapi_enable: false });
    const res = await api().get(`/groups/${g.group_id}`).expect(200);
    assert.deepEqual(Object.keys(res.body).sort(), [
      'check_domain',
      'device_policy',
      'group_id',
      'name',
      'plan_id',
      'plan_status',
      'webapi_enable',
    ]);
    assert.equal(res.body.plan_id, plans.large.plan_id);
    assert.equal(res.body.webapi_enable, false);
    assertError(await api().get('/groups/987654'), 404);
    assertError(await api().get('/groups/abc'), 404);
    assertError(await api().get('/apis/accounts/v1/groups/987654'), 404);
  });

  it('POST /groups/<id> updates name, plan and policy flags (numeric and boolean strings coerced)', async () => {
    const plans = await knownPlans(api());
    const g = await createGroup(api(), { name: unique('grp'), plan_id: plans.small.plan_id });
    const name = unique('renamed');
    const res = await api().post(`/groups/${g.group_id}`, {
      name,
      plan_id: String(plans.medium.plan_id),
      webapi_enable: 'False',
      check_domain: 'True',
    });
    assert.equal(res.status, 200, res.text);
    assertEmptyOrJson(res);
    const expected = {
      group_id: g.group_id,
      name,
      plan_id: plans.medium.plan_id,
      webapi_enable: false,
      check_domain: true,
      device_policy: null,
      plan_status: 'current',
    };
    assert.deepEqual(await settledGroup(api(), g.group_id), expected);
    // the old name is free again, the new one is taken
    await createGroup(api(), { name: g.name, plan_id: plans.small.plan_id });
    assertConflict(await api().post('/groups/', { name, plan_id: plans.small.plan_id }), 'name');
    // renaming to its own name (other case) is not a conflict
    await api().post(`/groups/${g.group_id}`, { name: name.toUpperCase() }).expect(200);
    assert.equal((await api().get(`/groups/${g.group_id}`).expect(200)).body.name, name.toUpperCase());
  });

  it('POST /groups/<id> for an unknown group is 404; bad parameters are 400 naming them', async () => {
    const plans = await knownPlans(api());
    assertError(await api().post('/groups/987654', { name: unique('x') }), 404);
    const g = await createGroup(api(), { name: unique('grp'), plan_id: plans.small.plan_id });
    assertBadFields(
      await api().post(`/groups/${g.group_id}`, { plan_id: 'big', webapi_enable: 'sometimes', name: '' }),
      ['plan_id', 'webapi_enable', 'name'],
    );
    assertBadFields(await api().post(`/groups/${g.group_id}`, { force: 'please' }), ['force']);
    assertError(await api().post(`/groups/${g.group_id}`, [1, 2]), 400);
    assert.deepEqual((await api().get(`/groups/${g.group_id}`).expect(200)).body, g);
  });

  it('POST /groups/<id> with a nonexistent plan or a used name is 409 (plan_id / name) and changes nothing', async () => {
    const plans = await knownPlans(api());
    const g = await createGroup(api(), { name: unique('grp'), plan_id: plans.small.plan_id });
    const other = await createGroup(api(), { name: unique('grp'), plan_id: plans.small.plan_id });
    assertConflict(await api().post(`/groups/${g.group_id}`, { plan_id: 424242 }), 'plan_id');
    assertConflict(await api().post(`/groups/${g.group_id}`, { name: other.name }), 'name');
    assertConflict(
      await api().post(`/groups/${g.group_id}`, { name: other.name.toUpperCase(), webapi_enable: false }),
      'name',
    );
    assert.deepEqual((await api().get(`/groups/${g.group_id}`).expect(200)).body, g);
  });

  it('a group plan change moves every member to the plan; 409 avatars_over_quota unless force=true (rule 4)', async () => {
    const plans = await knownPlans(api());
    const g = await createGroup(api(), { name: unique('grp'), plan_id: plans.large.plan_id });
    const heavy = await createUser(api(), { group_id: g.group_id });
    const light = await createUser(api(), { group_id: g.group_id });
    assert.equal(heavy.user.plan_id, plans.large.plan_id, 'a member adopts the group plan');
    // heavy stores more than the small plan holds
    const storage = await StorageEvents.open(target());
    try {
      const ids = await storage.idsOf(heavy.username);
      const device = await storage.registerDevice(ids, { name: 'laptop' });
      await storage.commitFile(device, 'laptop/big.bin', plans.small.storage_bytes + 5 * GB);
    } finally {
      await storage.close();
    }
    const stored = plans.small.storage_bytes + 5 * GB;
    const { quota: before } = await eventuallyStored(heavy.username, stored);

    // medium still holds it: no conflict, members follow (right after the reply: issue 39)
    const changed = await api().post(`/groups/${g.group_id}`, { plan_id: plans.medium.plan_id }).expect(200);
    assert.equal(changed.body.plan_id, plans.medium.plan_id);
    await settledGroup(api(), g.group_id);
    for (const u of [heavy, light]) assert.equal((await getUser(api(), u.username)).plan_id, plans.medium.plan_id);

    const refused = await api().post(`/groups/${g.group_id}`, { plan_id: plans.small.plan_id });
    assertConflict(refused, 'avatars_over_quota');
    assert.equal((await api().get(`/groups/${g.group_id}`).expect(200)).body.plan_id, plans.medium.plan_id);
    for (const u of [heavy, light]) assert.equal((await getUser(api(), u.username)).plan_id, plans.medium.plan_id);
    assertConflict(
      await api().post(`/groups/${g.group_id}`, { plan_id: plans.small.plan_id, force: false }),
      'avatars_over_quota',
    );

    await api().post(`/groups/${g.group_id}`, { plan_id: plans.small.plan_id, force: 'true' }).expect(200);
    assert.equal((await settledGroup(api(), g.group_id)).plan_id, plans.small.plan_id);
    for (const u of [heavy, light]) {
      const rec = await getUser(api(), u.username);
      assert.equal(rec.plan_id, plans.small.plan_id);
      assert.equal(rec.storage_bytes, plans.small.storage_bytes);
    }
    const after = (await api().get('/partner/quota').expect(200)).body;
    assert.equal(
      after.bytes_allocated,
      before.bytes_allocated -
        2 * (plans.medium.storage_bytes - plans.small.storage_bytes) -
        2 * (plans.large.storage_bytes - plans.medium.storage_bytes),
    );
  });

  /** Waits until accounts has projected the user's stored bytes; returns the quota seen then. */
  async function eventuallyStored(username: string, bytes: number) {
    const deadline = Date.now() + 5000;
    for (;;) {
      const user = await getUser(api(), username);
      if (user.bytes_stored === bytes) return { user, quota: (await api().get('/partner/quota').expect(200)).body };
      if (Date.now() > deadline) assert.fail(`bytes_stored of ${username} is ${user.bytes_stored}, expected ${bytes}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  it('POST /groups/<id> is 402 when the plan would make the allocation exceed bytes_available', async () => {
    const plans = await knownPlans(api());
    const available = 2 * plans.small.storage_bytes + plans.small.storage_bytes / 2;
    const { api: p } = await createPartner(target(), { bytes_available: available });
    const g = await createGroup(p, { name: unique('grp'), plan_id: plans.small.plan_id });
    const members = [await createUser(p, { group_id: g.group_id }), await createUser(p, { group_id: g.group_id })];
    const res = await p.post(`/groups/${g.group_id}`, { plan_id: plans.medium.plan_id });
    assertError(res, 402);
    // force overrides the per-avatar quota check, never the enterprise's available bytes
    assertError(await p.post(`/groups/${g.group_id}`, { plan_id: plans.medium.plan_id, force: true }), 402);
    assert.equal((await p.get(`/groups/${g.group_id}`).expect(200)).body.plan_id, plans.small.plan_id);
    for (const m of members) assert.equal((await getUser(p, m.username)).plan_id, plans.small.plan_id);
    const quota = (await p.get('/partner/quota').expect(200)).body;
    assert.equal(quota.bytes_allocated, 2 * plans.small.storage_bytes);
    assert.equal(quota.bytes_available, available);
    // a change that fits is fine: an empty group may take any plan
    const empty = await createGroup(p, { name: unique('grp'), plan_id: plans.small.plan_id });
    await p.post(`/groups/${empty.group_id}`, { plan_id: plans.large.plan_id }).expect(200);
  });

  for (const how of ['DELETE', 'POST ?action=delete'] as const) {
    const remove = (path: string) =>
      how === 'DELETE' ? api().delete(path) : api().post(`${path}${path.includes('?') ? '&' : '?'}action=delete`);

    it(`${how} /groups/<id>: 200 for an empty group, then 404; 404 for an unknown group`, async () => {
      const plans = await knownPlans(api());
      const g = await createGroup(api(), { name: unique('grp'), plan_id: plans.small.plan_id });
      const res = await remove(`/groups/${g.group_id}`);
      assert.equal(res.status, 200, res.text);
      assertEmptyOrJson(res);
      assertError(await api().get(`/groups/${g.group_id}`), 404);
      assertError(await remove(`/groups/${g.group_id}`), 404);
      assertError(await remove('/groups/987654'), 404);
      assert.ok(
        !((await api().get('/groups/').expect(200)).body as { group_id: number }[]).some(
          (x) => x.group_id === g.group_id,
        ),
      );
      // the name can be used again
      await createGroup(api(), { name: g.name, plan_id: plans.small.plan_id });
    });

    it(`${how} /groups/<id> of a group with users and no move_to is 409 and deletes nothing (rule 2)`, async () => {
      const plans = await knownPlans(api());
      const g = await createGroup(api(), { name: unique('grp'), plan_id: plans.small.plan_id });
      const member = await createUser(api(), { group_id: g.group_id });
      const res = await remove(`/groups/${g.group_id}`);
      assert.equal(res.status, 409, res.text);
      assert.equal(typeof res.body.reason, 'string');
      assert.ok(Array.isArray(res.body.conflicts) && res.body.conflicts.length > 0, res.text);
      assert.deepEqual((await api().get(`/groups/${g.group_id}`).expect(200)).body, g);
      assert.equal((await getUser(api(), member.username)).group_id, g.group_id);
    });

    it(`${how} /groups/<id>?move_to=<other> moves every user to the other group (rule 1)`, async () => {
      const plans = await knownPlans(api());
      const from = await createGroup(api(), { name: unique('from'), plan_id: plans.small.plan_id });
      const to = await createGroup(api(), { name: unique('to'), plan_id: plans.medium.plan_id });
      const members = await Promise.all([1, 2, 3, 4, 5].map(() => createUser(api(), { group_id: from.group_id })));
      const bystander = await createUser(api(), { group_id: to.group_id });
      const res = await remove(`/groups/${from.group_id}?move_to=${to.group_id}`);
      assert.equal(res.status, 200, res.text);
      assertError(await api().get(`/groups/${from.group_id}`), 404);
      // the members move right after the reply (issue 39)
      await eventually(
        async () => {
          for (const m of members) {
            const rec = await getUser(api(), m.username);
            assert.equal(rec.group_id, to.group_id);
            assert.equal(rec.plan_id, plans.medium.plan_id, 'moved users take the target group plan');
          }
        },
        30_000,
        100,
      );
      const listed = (await api().get(`/users/?group_id=${to.group_id}`).expect(200)).body as { username: string }[];
      assert.deepEqual(
        listed.map((u) => u.username).sort(),
        [...members.map((m) => m.username), bystander.username].sort(),
      );
      assert.deepEqual((await api().get(`/users/?group_id=${from.group_id}`).expect(200)).body, []);
    });

    it(`${how} /groups/<id> with a move_to that names no group (or itself) is refused and deletes nothing`, async () => {
      const plans = await knownPlans(api());
      const g = await createGroup(api(), { name: unique('grp'), plan_id: plans.small.plan_id });
      const member = await createUser(api(), { group_id: g.group_id });
      for (const bad of ['987654', String(g.group_id), 'abc']) {
        const res = await remove(`/groups/${g.group_id}?move_to=${bad}`);
        assertError(res, 400);
      }
      assert.deepEqual((await api().get(`/groups/${g.group_id}`).expect(200)).body, g);
      assert.equal((await getUser(api(), member.username)).group_id, g.group_id);
    });
  }

  // ---- lenient bodies (CLIENT-FACTS transport) -------------------------------------------------

  for (const contentType of [
    'application/json',
    'text/javascript',
    'application/x-www-form-urlencoded',
    'text/plain; charset=utf-8',
  ]) {
    it(`a JSON body sent as ${contentType} is parsed as JSON`, async () => {
      const plans = await knownPlans(api());
      const name = unique('ct');
      const res = await api().post(
        '/groups/',
        { name, plan_id: String(plans.small.plan_id), check_domain: '1' },
        contentType,
      );
      assert.equal(res.status, 201, res.text);
      assert.equal(res.body.name, name);
      assert.equal(res.body.check_domain, true);
      await api().post(`/groups/${res.body.group_id}`, { webapi_enable: 0 }, contentType).expect(200);
      assert.equal((await api().get(`/groups/${res.body.group_id}`).expect(200)).body.webapi_enable, false);
    });
  }

  it('malformed JSON is 400 (groups, users, settings, password), never 500', async () => {
    const g = (await api().get('/groups/').expect(200)).body[0] as { group_id: number } | undefined;
    const paths = [
      '/groups/',
      '/users/',
      '/partner/settings',
      '/partner/password',
      ...(g ? [`/groups/${g.group_id}`] : []),
    ];
    for (const path of paths) {
      for (const body of ['{"name": ', '{name: "x"}', "{'a': 1}", 'plan_id=3&name=x', '[1,2']) {
        const res = await api()
          .raw.post(path)
          .auth(target().partner.username, target().partner.password)
          .set('Content-Type', 'text/javascript')
          .send(body);
        assertError(res, 400);
      }
    }
  });

  it('a body over 1 MiB is 413 (declared length and chunked), never 500', async () => {
    const big = JSON.stringify({ name: 'x'.repeat(1024 * 1024 + 10), plan_id: 1 });
    const res = await api()
      .raw.post('/groups/')
      .auth(target().partner.username, target().partner.password)
      .set('Content-Type', 'application/json')
      .send(big);
    assertError(res, 413);
    // without a Content-Length: the stream is cut off at the limit
    const chunked = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      const url = new URL('/groups/', target().url);
      import('node:http').then(({ request }) => {
        const req = request(
          url,
          {
            method: 'POST',
            headers: {
              'content-type': 'application/json',
              'transfer-encoding': 'chunked',
              authorization:
                'Basic ' + Buffer.from(`${target().partner.username}:${target().partner.password}`).toString('base64'),
            },
          },
          (r) => {
            let body = '';
            r.on('data', (c) => (body += c));
            r.on('end', () => resolve({ status: r.statusCode ?? 0, body }));
          },
        );
        req.on('error', reject);
        const chunk = 'x'.repeat(64 * 1024);
        let sent = 0;
        const pump = () => {
          while (sent < 24) {
            sent++;
            if (!req.write(chunk)) return void req.once('drain', pump);
          }
          req.end();
        };
        req.write('{"name": "');
        pump();
      }, reject);
    });
    assert.equal(chunked.status, 413, chunked.body);
    assert.equal(typeof JSON.parse(chunked.body).reason, 'string');
    // a body just under the limit is accepted (and then judged on its fields)
    const plans = await knownPlans(api());
    const near = await api().post('/groups/', {
      name: unique('n'),
      plan_id: plans.small.plan_id,
      padding: 'y'.repeat(1024 * 1024 - 200),
    });
    assert.equal(near.status, 201, near.text.slice(0, 200));
  });

  it('odd query strings and paths never cause a 500', async () => {
    const u = await createUser(api());
    const gets = [
      '/users/?limit=1&limit=2',
      '/users/?order_by=name&order_by=-name',
      '/users/?search=a&search=b',
      '/users/?search[$regex]=.*',
      '/users/?search_by=enabled=1&search_by=enabled=0',
      '/users/?search=%28%5B',
      '/users/?search_by=name%3E',
      '/users/?group_id=&plan_id=',
      '/users/?action=user_count&action=x',
      '/groups/?search=a&search=b',
      '/groups/?search=(',
      '/shares/?limit=1&limit=x',
      '/clientrevisions/?min_revision=1&min_revision=2',
      '/clientrevisions/?max_revision=99999999999999999999',
      `/users/${u.username}/shares/%2e%2e`,
      `/users/${u.username}%00`,
      '/users/%E0%A4%A',
      '/groups/%20',
      '/groups/1e3',
      '/groups/-1',
    ];
    for (const path of gets) {
      const res = await api().get(path);
      assert.ok(res.status < 500, `${path} -> ${res.status} ${res.text}`);
      if (res.status >= 400) assert.equal(typeof res.body.reason, 'string', `${path} -> ${res.text}`);
    }
  });

  it('odd JSON values never cause a 500', async () => {
    const plans = await knownPlans(api());
    const g = await createGroup(api(), { name: unique('odd'), plan_id: plans.small.plan_id });
    const u = await createUser(api());
    const bodies: unknown[] = [
      null,
      0,
      true,
      'str',
      [],
      {},
      { name: {} },
      { name: ['a'] },
      { plan_id: 1e300 },
      { plan_id: -1 },
      { plan_id: '99999999999999999999' },
      { group_id: { $gt: 0 } },
      { email: 42 },
      { enabled: null },
      { bonus_bytes: 1.5 },
      { bonus_gigs: '1e3' },
      { __proto__: { admin: true } },
      { constructor: 'x' },
    ];
    const paths = ['/groups/', `/groups/${g.group_id}`, '/users/', `/users/${u.username}`, '/partner/settings'];
    for (const path of paths) {
      for (const body of bodies) {
        const res = await api().post(path, body);
        assert.ok(res.status < 500, `${path} ${JSON.stringify(body)} -> ${res.status} ${res.text}`);
        if (res.status >= 400)
          assert.equal(typeof res.body.reason, 'string', `${path} ${JSON.stringify(body)} -> ${res.text}`);
      }
    }
    // keys every JS object has, sent raw
    for (const path of paths) {
      for (const raw of [
        '{"__proto__": {"plan_id": 1, "admin": true}}',
        '{"constructor": {"prototype": {"x": 1}}}',
        '{"toString": "x", "hasOwnProperty": 1}',
      ]) {
        const res = await api()
          .raw.post(path)
          .auth(target().partner.username, target().partner.password)
          .set('Content-Type', 'application/json')
          .send(raw);
        assert.ok(res.status < 500, `${path} ${raw} -> ${res.status} ${res.text}`);
      }
    }
    // the user and the group are still intact
    assert.equal((await getUser(api(), u.username)).username, u.username);
    assert.equal((await api().get(`/groups/${g.group_id}`).expect(200)).body.group_id, g.group_id);
  });
}
