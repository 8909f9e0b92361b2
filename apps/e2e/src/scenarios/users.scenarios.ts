/**
 * Users (spec §4A users rows and rule 3; CLIENT-FACTS: create, list parameters, user_count, the
 * record every list item carries, lenient attribute values, 402/409 bodies).
 */
import { UNLIMITED_BYTES, type UserRecord } from '@burrow/contracts';
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { createPartner, partnerApi } from '../harness/client.js';
import {
  assertBadFields,
  assertConflict,
  assertEmptyOrJson,
  assertError,
  assertUserRecord,
  createGroup,
  createUser,
  expectedStorageBytes,
  GB,
  getUser,
  knownPlans,
  unique,
} from './accounts-fixtures.js';
import type { ScenarioContext } from './scenarios.js';

export function usersScenarios({ target }: ScenarioContext) {
  const api = () => partnerApi(target());

  it('POST /users/ is 201 with the full record and the username; temp_password only when no password is given', async () => {
    const plans = await knownPlans(api());
    const username = unique('alice');
    const res = await api().post('/users/', {
      username,
      name: 'Alice Example',
      email: `${username}@Example.com`,
      plan_id: plans.medium.plan_id,
      bonus_bytes: 12345,
    });
    assert.equal(res.status, 201, res.text);
    assert.equal(res.body.username, username);
    assert.equal(typeof res.body.temp_password, 'string');
    assert.ok(res.body.temp_password.length >= 8);
    const u = res.body.user as UserRecord;
    assertUserRecord(u);
    assert.equal(u.username, username);
    assert.equal(u.name, 'Alice Example');
    assert.equal(u.email, `${username}@Example.com`);
    assert.equal(u.plan_id, plans.medium.plan_id);
    assert.equal(u.group_id, null);
    assert.equal(u.bonus_bytes, 12345);
    assert.equal(u.storage_bytes, plans.medium.storage_bytes + 12345);
    assert.equal(u.enabled, true);
    assert.equal(u.purgehold_active, false);
    assert.equal(u.bytes_stored, 0);
    assert.equal(u.num_devices, 0);
    assert.deepEqual(u.share_rooms, []);
    assert.ok(Math.abs(u.creation_time - Date.now() / 1000) < 120);
    assert.deepEqual(await getUser(api(), username), u);

    const withPassword = await api().post('/users/', {
      username: unique('bob'),
      name: 'Bob',
      email: `${unique('bob')}@example.com`,
      password: 'bob-password-1',
    });
    assert.equal(withPassword.status, 201, withPassword.text);
    assert.ok(!('temp_password' in withPassword.body));
    assertUserRecord(withPassword.body.user);
  });

  it('POST /users/ without a username derives one; without plan_id the first plan; with a group its plan', async () => {
    const plans = await knownPlans(api());
    const local = unique('carol');
    const res = await api().post('/users/', { name: 'Carol', email: `${local}@example.com` });
    assert.equal(res.status, 201, res.text);
    assert.equal(res.body.username, local);
    assert.equal(res.body.user.username, local);
    assert.equal(res.body.user.plan_id, plans.all[0].plan_id);
    const g = await createGroup(api(), { name: unique('grp'), plan_id: plans.large.plan_id });
    const member = await createUser(api(), { group_id: String(g.group_id) });
    assert.equal(member.user.group_id, g.group_id);
    assert.equal(member.user.plan_id, plans.large.plan_id);
    const explicit = await createUser(api(), { group_id: g.group_id, plan_id: plans.small.plan_id });
    assert.equal(explicit.user.plan_id, plans.small.plan_id, 'an explicit plan_id wins over the group plan');
  });

  it('POST /users/ with a duplicate username or email (any case) is 409 naming it', async () => {
    const first = await createUser(api());
    assertConflict(
      await api().post('/users/', { username: first.username, name: 'X', email: `${unique()}@example.com` }),
      'username',
    );
    assertConflict(
      await api().post('/users/', {
        username: first.username.toUpperCase(),
        name: 'X',
        email: `${unique()}@example.com`,
      }),
      'username',
    );
    assertConflict(await api().post('/users/', { username: unique(), name: 'X', email: first.user.email }), 'email');
    assertConflict(
      await api().post('/users/', { username: unique(), name: 'X', email: first.user.email.toUpperCase() }),
      'email',
    );
    // the refused creates left nothing behind
    const count = (await api().get(`/users/?action=user_count&search=${first.username}`).expect(200)).body;
    assert.deepEqual(count, { user_count: 1 });
  });

  it('POST /users/ with a nonexistent plan_id or group_id is 409 naming it, and frees the names it tried', async () => {
    const username = unique();
    const email = `${username}@example.com`;
    assertConflict(await api().post('/users/', { username, name: 'X', email, plan_id: 77777 }), 'plan_id');
    assertConflict(await api().post('/users/', { username, name: 'X', email, group_id: 77777 }), 'group_id');
    assertConflict(await api().post('/users/', { username, name: 'X', email, group_id: '0' }), 'group_id');
    const created = await createUser(api(), { username, email });
    assert.equal(created.username, username);
  });

  it('POST /users/ with bad parameters is 400 naming each', async () => {
    assertBadFields(await api().post('/users/', {}), ['name', 'email']);
    assertBadFields(await api().post('/users/', { name: 'X', email: 'not-an-email' }), ['email']);
    assertBadFields(
      await api().post('/users/', {
        name: '',
        email: `${unique()}@example.com`,
        plan_id: 'one',
        group_id: 'g',
        bonus_bytes: -5,
        enabled: 'perhaps',
      }),
      ['name', 'plan_id', 'group_id', 'bonus_bytes', 'enabled'],
    );
    assertBadFields(
      await api().post('/users/', { username: 'bad name!', name: 'X', email: `${unique()}@example.com` }),
      ['username'],
    );
    assertBadFields(await api().post('/users/', { name: 'X', email: `${unique()}@example.com`, password: 'short' }), [
      'password',
    ]);
  });

  it('POST /users/ is 402 "payment required" when the plan allocation would exceed bytes_available', async () => {
    const plans = await knownPlans(api());
    const available = plans.small.storage_bytes + plans.small.storage_bytes / 2;
    const { api: p } = await createPartner(target(), { bytes_available: available });
    const first = await createUser(p, { plan_id: plans.small.plan_id });
    const username = unique();
    const res = await p.post('/users/', {
      username,
      name: 'Too Much',
      email: `${username}@example.com`,
      plan_id: plans.small.plan_id,
      password: 'user-password-1',
    });
    assertError(res, 402);
    assert.match(res.body.reason, /payment required/i);
    assertError(
      await p.post('/users/', {
        username,
        name: 'Too Much',
        email: `${username}@example.com`,
        plan_id: plans.unlimited.plan_id,
      }),
      402,
    );
    assertError(
      await p.post('/users/', {
        username,
        name: 'Bonus',
        email: `${username}@example.com`,
        plan_id: plans.small.plan_id,
        bonus_gigs: 1,
      }),
      402,
    );
    const quota = (await p.get('/partner/quota').expect(200)).body;
    assert.equal(quota.bytes_allocated, plans.small.storage_bytes);
    assert.deepEqual((await p.get('/users/?action=user_count').expect(200)).body, { user_count: 1 });
    // once space is freed the same user fits, so the refused username/email were not kept
    await p.delete(`/users/${first.username}`).expect(200);
    const fits = await createUser(p, { username, email: `${username}@example.com`, plan_id: plans.small.plan_id });
    assert.equal(fits.username, username);
    assert.equal((await p.get('/partner/quota').expect(200)).body.bytes_allocated, plans.small.storage_bytes);
  });

  it('email_as_username: a partner with the feature gets the email as username', async () => {
    const { api: p } = await createPartner(target(), { features: { email_as_username: true } });
    const features = (await p.get('/partner/features').expect(200)).body;
    assert.equal(features.email_as_username, true);
    const email = `${unique('Dana')}@Example.org`;
    const res = await p.post('/users/', { name: 'Dana', email, password: 'user-password-1' });
    assert.equal(res.status, 201, res.text);
    assert.equal(res.body.username, email);
    assert.equal(res.body.user.username, email);
    assert.equal((await getUser(p, email)).email, email);
    // without the feature the username is the local part
    const local = unique('erin');
    const plain = await api().post('/users/', {
      name: 'Erin',
      email: `${local}@example.org`,
      password: 'user-password-1',
    });
    assert.equal(plain.body.username, local);
  });

  it('GET /users/<username> and /users/<email> (raw @, any case) find the user; unknown is 404', async () => {
    const u = await createUser(api(), { email: `${unique('Mixed')}@Example.COM` });
    assert.equal((await getUser(api(), u.username)).username, u.username);
    for (const email of [u.user.email, u.user.email.toLowerCase(), u.user.email.toUpperCase()]) {
      const res = await api().get(`/users/${email}`);
      assert.equal(res.status, 200, `${email}: ${res.text}`);
      assert.equal(res.body.username, u.username);
    }
    assert.equal((await api().get(`/apis/accounts/v1/users/${u.user.email}`).expect(200)).body.username, u.username);
    assert.equal(
      (
        await api()
          .get(`/users/${encodeURIComponent(u.user.email)}`)
          .expect(200)
      ).body.username,
      u.username,
    );
    assertError(await api().get('/users/nobody-at-all'), 404);
    assertError(await api().get('/users/nobody@nowhere.example'), 404);
  });

  it('GET /users/ items carry every record field with the right types; unlimited plan shows 1000000001000000000', async () => {
    const plans = await knownPlans(api());
    const unl = await createUser(api(), { plan_id: plans.unlimited.plan_id, bonus_bytes: 777 });
    assert.equal(unl.user.storage_bytes, UNLIMITED_BYTES);
    assert.equal(unl.user.bonus_bytes, 777);
    const res = await api().get(`/users/?search=${unl.username}`).expect(200);
    assert.match(res.text, /"storage_bytes":1000000001000000000[,}]/);
    const list = (await api().get('/users/').expect(200)).body as Record<string, unknown>[];
    assert.ok(list.length >= 2);
    const byPlan = new Map(plans.all.map((p) => [p.plan_id, p]));
    for (const u of list) {
      assertUserRecord(u);
      assert.equal(
        u.storage_bytes,
        expectedStorageBytes(byPlan.get(u.plan_id as number)!, u.bonus_bytes as number),
        `storage_bytes of ${u.username}`,
      );
      assert.equal(u.share_identifier, u.share_id);
    }
  });

  it('GET /users/ filters by plan_id, group_id and search (name or email), pages with limit/offset', async () => {
    const plans = await knownPlans(api());
    const tag = unique('flt');
    const g = await createGroup(api(), { name: tag, plan_id: plans.large.plan_id });
    const a = await createUser(api(), {
      username: `${tag}a`,
      name: `Zed ${tag} Alpha`,
      email: `alpha.${tag}@example.com`,
      plan_id: plans.small.plan_id,
    });
    const b = await createUser(api(), {
      username: `${tag}b`,
      name: 'Beta Person',
      email: `beta.${tag}@example.net`,
      group_id: g.group_id,
    });
    const c = await createUser(api(), {
      username: `${tag}c`,
      name: `Gamma ${tag.toUpperCase()}`,
      email: `g@${tag}.example.org`,
      group_id: g.group_id,
      plan_id: plans.medium.plan_id,
    });
    const names = (res: { body: { username: string }[] }) => res.body.map((u) => u.username);

    assert.deepEqual(names(await api().get(`/users/?search=${tag}`).expect(200)), [a.username, b.username, c.username]);
    assert.deepEqual(
      names(await api().get(`/users/?search=BETA.${tag}`).expect(200)),
      [b.username],
      'search matches the email, case-insensitively',
    );
    assert.deepEqual(
      names(await api().get(`/users/?search=zed%20${tag}`).expect(200)),
      [a.username],
      'search matches the name',
    );
    assert.deepEqual(names(await api().get(`/users/?group_id=${g.group_id}`).expect(200)), [b.username, c.username]);
    assert.deepEqual(
      names(await api().get(`/users/?group_id=${g.group_id}&plan_id=${plans.medium.plan_id}`).expect(200)),
      [c.username],
    );
    const onSmall = names(await api().get(`/users/?plan_id=${plans.small.plan_id}`).expect(200));
    assert.ok(onSmall.includes(a.username) && !onSmall.includes(b.username) && !onSmall.includes(c.username));
    assert.deepEqual(names(await api().get(`/users/?search=${tag}&limit=2`).expect(200)), [a.username, b.username]);
    assert.deepEqual(names(await api().get(`/users/?search=${tag}&limit=2&offset=2`).expect(200)), [c.username]);
    assert.deepEqual(names(await api().get(`/users/?search=${tag}&offset=1`).expect(200)), [b.username, c.username]);
    assert.deepEqual((await api().get(`/users/?search=${tag}&offset=3`).expect(200)).body, []);
    assert.deepEqual((await api().get(`/users/?action=user_count&search=${tag}`).expect(200)).body, { user_count: 3 });
    assert.deepEqual((await api().get(`/users/?action=user_count&group_id=${g.group_id}`).expect(200)).body, {
      user_count: 2,
    });
    assert.deepEqual(
      (await api().get(`/users/?action=user_count&search=${tag}&limit=1`).expect(200)).body,
      { user_count: 3 },
      'count ignores paging',
    );
    for (const bad of ['limit=-1', 'offset=x', 'plan_id=abc', 'group_id=1.5'])
      assertBadFields(await api().get(`/users/?${bad}`), [bad.split('=')[0]]);
  });

  it('GET /users/ orders by any user field, descending with a leading "-"', async () => {
    const tag = unique('ord');
    const made = [];
    for (const [suffix, bonus, name] of [
      ['a', 300, 'Charlie'],
      ['b', 100, 'alpha'],
      ['c', 200, 'Bravo'],
    ] as const) {
      made.push(await createUser(api(), { username: `${tag}${suffix}`, name: `${name} ${tag}`, bonus_bytes: bonus }));
    }
    const names = async (q: string) =>
      ((await api().get(`/users/?search=${tag}&${q}`).expect(200)).body as { username: string }[]).map((u) =>
        u.username.slice(-1),
      );
    assert.deepEqual(await names('order_by=bonus_bytes'), ['b', 'c', 'a']);
    assert.deepEqual(await names('order_by=-bonus_bytes'), ['a', 'c', 'b']);
    assert.deepEqual(await names('order_by=username'), ['a', 'b', 'c']);
    assert.deepEqual(await names('order_by=-username'), ['c', 'b', 'a']);
    assert.deepEqual(await names('order_by=-avatar_id'), ['c', 'b', 'a']);
    assert.deepEqual(await names('order_by=bonus_bytes&limit=1&offset=1'), ['c']);
    assertBadFields(await api().get('/users/?order_by=password'), ['order_by']);
    assertBadFields(await api().get('/users/?order_by=-no_such_field'), ['order_by']);
  });

  it('GET /users/ search_by field<op>value: =, >, >=, <, <= on numbers, booleans and times', async () => {
    const tag = unique('sb');
    const on = await createUser(api(), { username: `${tag}on`, bonus_bytes: 10 });
    const off = await createUser(api(), { username: `${tag}off`, bonus_bytes: 20 });
    await api().post(`/users/${off.username}`, { enabled: false }).expect(200);
    const names = async (searchBy: string) =>
      (
        (
          await api()
            .get(`/users/?search=${tag}&search_by=${encodeURIComponent(searchBy)}`)
            .expect(200)
        ).body as { username: string }[]
      ).map((u) => u.username);
    assert.deepEqual(await names('enabled=0'), [off.username]);
    assert.deepEqual(await names('enabled=1'), [on.username]);
    assert.deepEqual(await names('enabled=false'), [off.username]);
    assert.deepEqual(await names('creation_time>0'), [off.username, on.username]);
    assert.deepEqual(await names(`creation_time>${Math.floor(Date.now() / 1000) + 3600}`), []);
    assert.deepEqual(await names('bonus_bytes>=20'), [off.username]);
    assert.deepEqual(await names('bonus_bytes>10'), [off.username]);
    assert.deepEqual(await names('bonus_bytes<20'), [on.username]);
    assert.deepEqual(await names('bonus_bytes<=20'), [off.username, on.username]);
    assert.deepEqual(await names('bonus_bytes=10'), [on.username]);
    assert.deepEqual(await names('last_login>1700000000'), [], 'never logged in: last_login is null');
    assert.deepEqual(
      (await api().get(`/users/?action=user_count&search=${tag}&search_by=enabled%3D0`).expect(200)).body,
      { user_count: 1 },
    );
    for (const bad of ['enabled', 'enabled~1', 'password=x', 'bonus_bytes>lots', 'enabled=maybe']) {
      assertBadFields(await api().get(`/users/?search_by=${encodeURIComponent(bad)}`), ['search_by']);
    }
  });

  it('POST /users/<u> sets several attributes at once, numeric and boolean strings included', async () => {
    const plans = await knownPlans(api());
    const g = await createGroup(api(), { name: unique('grp'), plan_id: plans.medium.plan_id });
    const u = await createUser(api(), { plan_id: plans.small.plan_id });
    const email = `${unique('new')}@example.com`;
    const res = await api().post(`/users/${u.username}`, {
      name: 'Renamed Person',
      email,
      plan_id: String(plans.large.plan_id),
      group_id: String(g.group_id),
      bonus_gigs: '3',
      enabled: 'False',
      purgehold_active: 'True',
    });
    assert.equal(res.status, 200, res.text);
    assertEmptyOrJson(res);
    const rec = await getUser(api(), u.username);
    assert.equal(rec.name, 'Renamed Person');
    assert.equal(rec.email, email);
    assert.equal(rec.plan_id, plans.large.plan_id, 'an explicit plan_id wins over the group plan');
    assert.equal(rec.group_id, g.group_id);
    assert.equal(rec.bonus_bytes, 3 * GB);
    assert.equal(rec.storage_bytes, plans.large.storage_bytes + 3 * GB);
    assert.equal(rec.enabled, false);
    assert.equal(rec.purgehold_active, true);
    if (res.text) assert.deepEqual(res.body, rec, 'the reply is the updated user');
    // the user is found by the new email, not the old one; the old email is free again
    assert.equal((await getUser(api(), email)).username, u.username);
    assertError(await api().get(`/users/${u.user.email}`), 404);
    await createUser(api(), { email: u.user.email });

    await api()
      .post(`/users/${email}`, { bonus_bytes: 12345, enabled: 1, purgehold_active: '0', group_id: null })
      .expect(200);
    const again = await getUser(api(), u.username);
    assert.equal(again.bonus_bytes, 12345);
    assert.equal(again.storage_bytes, plans.large.storage_bytes + 12345);
    assert.equal(again.enabled, true);
    assert.equal(again.purgehold_active, false);
    assert.equal(again.group_id, null);
    assert.equal(again.plan_id, plans.large.plan_id, 'leaving a group keeps the plan');
  });

  it('POST /users/<u> joining a group adopts its plan; a promo plan needs no promo code (rule 3)', async () => {
    const plans = await knownPlans(api());
    const g = await createGroup(api(), { name: unique('grp'), plan_id: plans.medium.plan_id });
    const u = await createUser(api(), { plan_id: plans.small.plan_id });
    await api().post(`/users/${u.username}`, { group_id: g.group_id }).expect(200);
    assert.equal((await getUser(api(), u.username)).plan_id, plans.medium.plan_id);
    const res = await api().post(`/users/${u.username}`, { plan_id: plans.promo.plan_id });
    assert.equal(res.status, 200, res.text);
    const rec = await getUser(api(), u.username);
    assert.equal(rec.plan_id, plans.promo.plan_id);
    assert.equal(rec.storage_bytes, plans.promo.storage_bytes);
  });

  it('POST /users/<u> with bad values is 400 naming every bad field and changes nothing', async () => {
    const u = await createUser(api());
    const before = await getUser(api(), u.username);
    const res = await api().post(`/users/${u.username}`, {
      name: 'Fine',
      plan_id: 'abc',
      enabled: 'maybe',
      email: 'not-an-email',
      bonus_gigs: -1,
      purgehold_active: [],
      group_id: '1x',
    });
    assertBadFields(res, ['plan_id', 'enabled', 'email', 'bonus_gigs', 'purgehold_active', 'group_id']);
    assert.deepEqual(await getUser(api(), u.username), before);
    assertBadFields(await api().post(`/users/${u.username}`, { bonus_bytes: '1.5' }), ['bonus_bytes']);
    // bonus values must stay exact integers in JSON (clients read them as int64)
    assertBadFields(await api().post(`/users/${u.username}`, { bonus_gigs: 9_007_199_255 }), ['bonus_gigs']);
    assertBadFields(await api().post(`/users/${u.username}`, { bonus_bytes: '9999999999999999' }), ['bonus_bytes']);
    assertBadFields(
      await api().post('/users/', { name: 'X', email: `${unique()}@example.com`, bonus_gigs: '99999999999' }),
      ['bonus_gigs'],
    );
    assert.deepEqual(await getUser(api(), u.username), before);
    assertError(await api().post(`/users/${u.username}?action=explode`, {}), 400);
  });

  it('POST /users/<u> with a taken email, unknown plan or unknown group is 409 naming it', async () => {
    const u = await createUser(api());
    const other = await createUser(api());
    assertConflict(await api().post(`/users/${u.username}`, { email: other.user.email.toUpperCase() }), 'email');
    assertConflict(await api().post(`/users/${u.username}`, { plan_id: 55555 }), 'plan_id');
    assertConflict(await api().post(`/users/${u.username}`, { group_id: 55555 }), 'group_id');
    assert.deepEqual(await getUser(api(), u.username), u.user);
    assertError(await api().post('/users/nobody-such', { name: 'x' }), 404);
  });

  it('POST /users/<u> is 402 "quota exceeded" when the change would exceed bytes_available', async () => {
    const plans = await knownPlans(api());
    const available = plans.small.storage_bytes + 5 * GB;
    const { api: p } = await createPartner(target(), { bytes_available: available });
    const u = await createUser(p, { plan_id: plans.small.plan_id });
    for (const change of [
      { plan_id: plans.medium.plan_id },
      { bonus_gigs: 6 },
      { bonus_bytes: 5 * GB + 1 },
      { name: 'Still Fine', plan_id: plans.unlimited.plan_id },
    ]) {
      const res = await p.post(`/users/${u.username}`, change);
      assertError(res, 402);
      assert.match(res.body.reason, /quota exceeded/i);
    }
    assert.deepEqual(await getUser(p, u.username), u.user, 'a refused edit changes nothing, not even the name');
    await p.post(`/users/${u.username}`, { bonus_gigs: 5 }).expect(200);
    assert.equal((await p.get('/partner/quota').expect(200)).body.bytes_allocated, available);
    // freeing space is always allowed
    await p.post(`/users/${u.username}`, { bonus_bytes: 0 }).expect(200);
    assert.equal((await p.get('/partner/quota').expect(200)).body.bytes_allocated, plans.small.storage_bytes);
  });

  for (const how of ['DELETE', 'POST ?action=delete'] as const) {
    it(`${how} /users/<u> purges the user: 200, then 404 everywhere, allocation freed, names reusable`, async () => {
      const plans = await knownPlans(api());
      const u = await createUser(api(), { plan_id: plans.medium.plan_id, bonus_bytes: 1000 });
      const quotaBefore = (await api().get('/partner/quota').expect(200)).body;
      const countBefore = (await api().get('/users/?action=user_count').expect(200)).body.user_count;
      const res =
        how === 'DELETE'
          ? await api().delete(`/users/${u.username}`)
          : await api().post(`/users/${u.user.email}?action=delete`);
      assert.equal(res.status, 200, res.text);
      assertEmptyOrJson(res);
      assertError(await api().get(`/users/${u.username}`), 404);
      assertError(await api().get(`/users/${u.user.email}`), 404);
      assertError(await api().get(`/users/${u.username}/devices`), 404);
      assertError(await api().delete(`/users/${u.username}`), 404);
      assertError(await api().post(`/users/${u.username}?action=delete`), 404);
      assert.ok(
        !((await api().get('/users/').expect(200)).body as UserRecord[]).some((x) => x.username === u.username),
      );
      assert.equal((await api().get('/users/?action=user_count').expect(200)).body.user_count, countBefore - 1);
      const quotaAfter = (await api().get('/partner/quota').expect(200)).body;
      assert.equal(quotaAfter.bytes_allocated, quotaBefore.bytes_allocated - plans.medium.storage_bytes - 1000);
      const again = await createUser(api(), { username: u.username, email: u.user.email });
      assert.notEqual(again.user.avatar_id, u.user.avatar_id);
    });
  }

  it('POST /users/ honours enabled and purgehold_active; lookups by username ignore case; limit=0 is an empty page', async () => {
    const tag = Math.random().toString(36).slice(2, 8);
    const created = await api()
      .post('/users/', {
        name: 'Flags',
        email: `flags-${tag}@example.com`,
        username: `Flags${tag}`,
        password: 'flags-password-1',
        enabled: 'false',
        purgehold_active: true,
      })
      .expect(201);
    assert.equal(created.body.user.enabled, false);
    assert.equal(created.body.user.purgehold_active, true);
    const byOtherCase = await api().get(`/users/flags${tag.toUpperCase()}`).expect(200);
    assert.equal(byOtherCase.body.username, `Flags${tag}`);
    assert.deepEqual((await api().get('/users/?limit=0').expect(200)).body, []);
    assert.deepEqual((await api().get('/shares/?limit=0').expect(200)).body, []);
  });
}
