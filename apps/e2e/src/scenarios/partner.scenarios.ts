/**
 * The partner's own resources: API password (every gateway sees the change at once), enterprise
 * settings (validation of every field, round trip), features, quota (allocation from plans and
 * bonuses, usage from storage events) and info.
 */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { createPartner, partnerApi } from '../harness/client.js';
import {
  assertBadFields,
  assertEmptyOrJson,
  assertError,
  createUser,
  DAY,
  eventually,
  GB,
  knownPlans,
  now,
  StorageEvents,
  unique,
} from './accounts-fixtures.js';
import type { ScenarioContext } from './scenarios.js';

const VALID_SETTINGS = {
  omva_url: 'https://appliance.example.com/omva',
  support_email: 'help@example.com',
  share_link_ttl: 60,
  autopurge_interval: 30,
  purgehold_duration: 86400,
  ad_domain: 'corp.example.com',
  signup_network_restriction: ['10.0.0.0/8', '192.168.1.0/24', '2001:db8::/32'],
  versionpurge_interval: 90,
  admin_email: 'admin@example.com',
  sharing_enabled: false,
  api_version: '1.0',
};

export function partnerScenarios({ target }: ScenarioContext) {
  const api = () => partnerApi(target());

  it('POST /partner/password with a bare JSON string: the old password is refused at once and the new one works, on every gateway', async () => {
    const { credentials, api: p } = await createPartner(target());
    // every gateway has seen (and may cache) the old credentials
    for (const url of target().urls) await partnerApi(target(), url, credentials).get('/ping').expect(200);
    const next = 'brand-new-password-2';
    const res = await p.post('/partner/password', next);
    assert.equal(res.status, 200, res.text);
    assertEmptyOrJson(res);
    for (const url of target().urls) {
      const old = await partnerApi(target(), url, credentials).get('/ping');
      assert.equal(old.status, 401, `${url}: old password still accepted`);
      assert.match(old.headers['www-authenticate'], /^Basic/);
      const fresh = await partnerApi(target(), url, { username: credentials.username, password: next }).get('/ping');
      assert.equal(fresh.status, 200, `${url}: new password refused`);
      assert.equal(fresh.text, '"pong"');
    }
    // and once more, through the other mount
    const p2 = partnerApi(target(), target().urls[target().urls.length - 1], {
      username: credentials.username,
      password: next,
    });
    await p2.post('/apis/accounts/v1/partner/password', 'third-password-33', 'application/json').expect(200);
    assert.equal((await p2.get('/ping')).status, 401);
    await partnerApi(target(), target().url, { username: credentials.username, password: 'third-password-33' })
      .get('/ping')
      .expect(200);
  });

  it('POST /partner/password refuses a non-string or too short password with 400 and keeps the old one', async () => {
    const { credentials, api: p } = await createPartner(target());
    for (const body of [12345678, ['a-long-password'], null, 'short'])
      assertError(await p.post('/partner/password', body), 400);
    assertError(await p.post('/partner/password'), 400);
    await partnerApi(target(), target().url, credentials).get('/ping').expect(200);
  });

  it('GET /partner/settings has every setting with its type', async () => {
    const { api: p } = await createPartner(target());
    const s = (await p.get('/partner/settings').expect(200)).body;
    for (const key of Object.keys(VALID_SETTINGS)) assert.ok(key in s, `settings lack ${key}`);
    assert.equal(typeof s.share_link_ttl, 'number');
    assert.equal(typeof s.purgehold_duration, 'number');
    assert.ok(s.autopurge_interval === null || Number.isInteger(s.autopurge_interval));
    assert.ok(Array.isArray(s.signup_network_restriction));
    assert.equal(typeof s.sharing_enabled, 'boolean');
    for (const key of ['omva_url', 'support_email', 'ad_domain', 'admin_email'])
      assert.ok(s[key] === null || typeof s[key] === 'string', key);
  });

  it('POST /partner/settings round-trips every field (read back on every gateway)', async () => {
    const { credentials, api: p } = await createPartner(target());
    const res = await p.post('/partner/settings', VALID_SETTINGS);
    assert.equal(res.status, 200, res.text);
    assertEmptyOrJson(res);
    for (const url of target().urls) {
      assert.deepEqual(
        (await partnerApi(target(), url, credentials).get('/partner/settings').expect(200)).body,
        VALID_SETTINGS,
      );
    }
    // a partial update changes only what it names; numeric strings are coerced; null clears
    await p
      .post('/partner/settings', {
        share_link_ttl: '120',
        autopurge_interval: null,
        ad_domain: null,
        signup_network_restriction: [],
      })
      .expect(200);
    assert.deepEqual((await p.get('/partner/settings').expect(200)).body, {
      ...VALID_SETTINGS,
      share_link_ttl: 120,
      autopurge_interval: null,
      ad_domain: null,
      signup_network_restriction: [],
    });
    await p.post('/partner/settings', { autopurge_interval: 0, purgehold_duration: '0' }).expect(200);
    const s = (await p.get('/partner/settings').expect(200)).body;
    assert.equal(s.autopurge_interval, 0);
    assert.equal(s.purgehold_duration, 0);
    // another partner's settings are untouched
    assert.notDeepEqual((await api().get('/partner/settings').expect(200)).body, s);
  });

  it('POST /partner/settings is 400 naming every bad field (URL, emails, non-negative ints, CIDR list, unknown keys) and changes nothing', async () => {
    const { api: p, credentials } = await createPartner(target());
    await p.post('/partner/settings', VALID_SETTINGS).expect(200);
    const res = await p.post('/partner/settings', {
      omva_url: 'not a url',
      support_email: 'nobody',
      share_link_ttl: -1,
      autopurge_interval: 'weekly',
      purgehold_duration: 1.5,
      ad_domain: 'bad domain!',
      signup_network_restriction: ['10.0.0.0/33', 'not-a-cidr'],
      versionpurge_interval: -7,
      admin_email: 'a@b',
      sharing_enabled: 'sometimes',
      favourite_colour: 'blue',
    });
    assertBadFields(res, [
      'omva_url',
      'support_email',
      'share_link_ttl',
      'autopurge_interval',
      'purgehold_duration',
      'ad_domain',
      'signup_network_restriction',
      'versionpurge_interval',
      'admin_email',
      'sharing_enabled',
      'favourite_colour',
    ]);
    // one bad field refuses the whole request
    assertBadFields(await p.post('/partner/settings', { share_link_ttl: 30, omva_url: 'ftp://files.example.com/' }), [
      'omva_url',
    ]);
    assertBadFields(await p.post('/partner/settings', { signup_network_restriction: '10.0.0.0/8' }), [
      'signup_network_restriction',
    ]);
    assertBadFields(await p.post('/partner/settings', { signup_network_restriction: ['300.1.1.1/8'] }), [
      'signup_network_restriction',
    ]);
    assertBadFields(await p.post('/partner/settings', { share_link_ttl: 0 }), ['share_link_ttl']);
    // keys that exist on every JS object are unknown settings too
    for (const key of ['constructor', 'toString', 'hasOwnProperty', '__proto__']) {
      const raw = await p.raw
        .post('/partner/settings')
        .auth(credentials.username, credentials.password)
        .set('Content-Type', 'application/json')
        .send(`{"${key}": "x"}`);
      assertBadFields(raw, [key]);
    }
    assertError(await p.post('/partner/settings', ['omva_url']), 400);
    assertError(await p.post('/partner/settings', 'omva_url'), 400);
    assert.deepEqual((await p.get('/partner/settings').expect(200)).body, VALID_SETTINGS);
  });

  it('GET /partner/features has the five flags as booleans, as the operator set them', async () => {
    const plain = (await api().get('/partner/features').expect(200)).body;
    assert.deepEqual(Object.keys(plain).sort(), [
      'email_as_username',
      'group_permissions',
      'ldap',
      'netkes',
      'signup_restrictions',
    ]);
    for (const v of Object.values(plain)) assert.equal(typeof v, 'boolean');
    const { api: p } = await createPartner(target(), { features: { ldap: true, netkes: true } });
    assert.deepEqual((await p.get('/partner/features').expect(200)).body, {
      netkes: true,
      ldap: true,
      group_permissions: false,
      signup_restrictions: false,
      email_as_username: false,
    });
  });

  it("GET /partner/info names the partner; its partner_id is the one on the partner's users", async () => {
    const company = `Company ${unique()}`;
    const {
      info,
      api: p,
      credentials,
    } = await createPartner(target(), { company_name: company, brand_identifier: 'acme-brand' });
    const res = (await p.get('/partner/info').expect(200)).body;
    assert.equal(res.partner_id, info.partner_id);
    assert.equal(typeof res.partner_id, 'string');
    assert.equal(res.company_name, company);
    assert.equal(res.brand_identifier, 'acme-brand');
    assert.equal(res.username, credentials.username);
    const u = await createUser(p);
    const storage = await StorageEvents.open(target());
    try {
      assert.equal((await storage.idsOf(u.username)).partnerId, res.partner_id);
    } finally {
      await storage.close();
    }
    assert.notEqual((await api().get('/partner/info').expect(200)).body.partner_id, res.partner_id);
  });

  it('GET /partner/quota: bytes_allocated is the sum of plan + bonus; used, shares and devices come from storage events', async () => {
    const plans = await knownPlans(api());
    const { api: p } = await createPartner(target(), { bytes_available: 10_000 * GB });
    const empty = (await p.get('/partner/quota').expect(200)).body;
    assert.deepEqual(empty, {
      bytes_available: 10_000 * GB,
      bytes_allocated: 0,
      bytes_used: 0,
      share_count: 0,
      device_count: 0,
    });
    const a = await createUser(p, { plan_id: plans.small.plan_id, bonus_bytes: 7 });
    const b = await createUser(p, { plan_id: plans.medium.plan_id, bonus_gigs: 2 });
    const allocated = plans.small.storage_bytes + 7 + plans.medium.storage_bytes + 2 * GB;
    assert.equal((await p.get('/partner/quota').expect(200)).body.bytes_allocated, allocated);

    const storage = await StorageEvents.open(target());
    const deviceIds: Record<string, string> = {};
    try {
      const ia = await storage.idsOf(a.username);
      const ib = await storage.idsOf(b.username);
      const a1 = (deviceIds.a1 = await storage.registerDevice(ia, { name: 'a-laptop' }));
      const a2 = (deviceIds.a2 = await storage.registerDevice(ia, { name: 'a-phone', at: now() - 3 * DAY }));
      const b1 = await storage.registerDevice(ib, { name: 'b-desktop' });
      await storage.commitFile(a1, 'a-laptop/x.txt', 1000);
      await storage.commitFile(a1, 'a-laptop/x.txt', 2000);
      await storage.commitFile(a2, 'a-phone/y.jpg', 300);
      await storage.commitFile(b1, 'b-desktop/z.bin', 5 * GB);
      await storage.createShare(ia, { room_key: 'photos', name: 'Photos' });
      await storage.createShare(ib, { room_key: 'work', name: 'Work' });
      await storage.createShare(ib, { room_key: 'more', name: 'More' });
    } finally {
      await storage.close();
    }
    const expected = {
      bytes_available: 10_000 * GB,
      bytes_allocated: allocated,
      bytes_used: 3300 + 5 * GB,
      share_count: 3,
      device_count: 3,
    };
    await eventually(async () => assert.deepEqual((await p.get('/partner/quota').expect(200)).body, expected));
    const ua = (await p.get(`/users/${a.username}`).expect(200)).body;
    assert.equal(ua.bytes_stored, 3300);
    assert.equal(ua.num_devices, 2);
    assert.deepEqual(
      ua.share_rooms.map((r: { room_key: string }) => r.room_key),
      ['photos'],
    );

    // purged versions and removed devices give their bytes back
    const storage2 = await StorageEvents.open(target());
    try {
      await storage2.purgeVersions(deviceIds.a1, 'a-laptop/x.txt', 1000);
      await storage2.removeDevice(deviceIds.a2);
    } finally {
      await storage2.close();
    }
    await eventually(async () =>
      assert.deepEqual((await p.get('/partner/quota').expect(200)).body, {
        ...expected,
        bytes_used: 2000 + 5 * GB,
        device_count: 2,
      }),
    );
    const ua2 = (await p.get(`/users/${a.username}`).expect(200)).body;
    assert.equal(ua2.bytes_stored, 2000);
    assert.equal(ua2.num_devices, 1);
    assert.deepEqual(
      (await p.get(`/users/${a.username}/devices`).expect(200)).body.map((d: { name: string }) => d.name),
      ['a-laptop'],
    );

    // purging a user takes its devices, shares and bytes out of the quota
    await p.delete(`/users/${b.username}`).expect(200);
    assert.deepEqual((await p.get('/partner/quota').expect(200)).body, {
      bytes_available: 10_000 * GB,
      bytes_allocated: plans.small.storage_bytes + 7,
      bytes_used: 2000,
      share_count: 1,
      device_count: 1,
    });
  });

  it('GET /partner/quota of an unlimited partner has bytes_available null', async () => {
    const { api: p } = await createPartner(target(), { bytes_available: null });
    const q = (await p.get('/partner/quota').expect(200)).body;
    assert.equal(q.bytes_available, null);
    for (const f of ['bytes_allocated', 'bytes_used', 'share_count', 'device_count']) assert.equal(q[f], 0, f);
    assert.equal((await api().get('/apis/accounts/v1/partner/quota').expect(200)).body.bytes_available, null);
  });
}
