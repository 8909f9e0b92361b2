/**
 * Partners through their bus handlers against the embedded event store and in-memory read models:
 * creation with a unique login name, authentication and its throttling, a password change in
 * force at once (on every replica), settings that merge, operator limits, and the quota view.
 */
import { DEFAULT_SETTINGS } from './settings.js';
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { expectError, GB, startTestAccounts, type TestAccounts, TEST_NOW } from '../testing/test-context.js';
import { PartnersHandlers } from './partners.handlers.js';
import { PartnerAuthentication, PartnerCredentialsGuard, requirePartnerStamp } from './partner-authentication.js';
import { PARTNER_CREDENTIALS_FIELD } from '@burrow/contracts';

describe('partners', () => {
  let t: TestAccounts;
  before(async () => {
    t = await startTestAccounts();
  });
  after(async () => {
    await t.close();
  });

  describe('create', () => {
    it('creates a partner with default features and settings; the brand defaults to the username', async () => {
      const p = await t.createPartner({
        username: 'Acme-Corp',
        company_name: 'Acme Ltd',
        bytes_available: 5000 * GB,
        features: { ldap: true },
      });
      assert.deepEqual(
        { company_name: p.company_name, brand_identifier: p.brand_identifier, username: p.username },
        { company_name: 'Acme Ltd', brand_identifier: 'acme-corp', username: 'Acme-Corp' },
      );
      assert.deepEqual(await t.partners.find({ username: 'Acme-Corp' }), {
        partner_id: p.partner_id,
        company_name: 'Acme Ltd',
        brand_identifier: 'acme-corp',
        username: 'Acme-Corp',
        bytes_available: 5000 * GB,
        features: {
          netkes: false,
          ldap: true,
          group_permissions: false,
          signup_restrictions: false,
          email_as_username: false,
        },
      });
      assert.deepEqual(await t.partners.settings({ partnerId: p.partner_id }), DEFAULT_SETTINGS);
      assert.equal(await t.holder('partnername', 'acme-corp'), p.partner_id);
    });

    it('a taken username is a 409 naming username (case-insensitively) and creates nothing', async () => {
      await t.createPartner({ username: 'globex' });
      const error = await expectError(t.createPartner({ username: 'GLOBEX', company_name: 'Impostor' }), 409);
      assert.deepEqual(error.body.conflicts, ['username']);
      await expectError(t.partners.find({ username: 'GLOBEX' }), 404);
      assert.equal((await t.partners.find({ username: 'globex' })).company_name, 'globex Ltd');
      assert.deepEqual(await t.recovery().pending(), []);
    });

    it('an invalid request is a 400 naming the fields, before anything is written', async () => {
      const head = await t.store.headPosition();
      const error = await expectError(
        t.partners.create({ username: 'ok-name', password: 'short', company_name: 'X' }),
        400,
      );
      assert.deepEqual(error.body.fields, ['password']);
      assert.equal(await t.store.headPosition(), head);
    });
  });

  describe('authenticate', () => {
    it('accepts the right password and refuses a wrong one or an unknown username with 401', async () => {
      const p = await t.createPartner({ username: 'initech', password: 'initech-secret' });
      const first = await t.partners.authenticate({
        username: 'initech',
        password: 'initech-secret',
        address: '198.51.100.7',
      });
      assert.deepEqual(first, { partnerId: p.partner_id, username: 'initech', stamp: first.stamp });
      assert.match(first.stamp, /^[A-Za-z0-9_-]{22}$/);
      // a second time answers from the verified cache, with the same result
      assert.deepEqual(
        await t.partners.authenticate({ username: 'initech', password: 'initech-secret', address: '198.51.100.7' }),
        first,
      );
      await expectError(
        t.partners.authenticate({ username: 'initech', password: 'initech-secreT', address: '198.51.100.7' }),
        401,
      );
      await expectError(
        t.partners.authenticate({ username: 'nobody-here', password: 'initech-secret', address: '198.51.100.7' }),
        401,
      );
    });

    it('throttles an account with 429 after 20 failures, even for the right password; others are unaffected', async () => {
      await t.createPartner({ username: 'hooli', password: 'hooli-secret' });
      await t.createPartner({ username: 'pied-piper', password: 'pied-piper-secret' });
      for (let i = 0; i < 20; i++)
        await expectError(
          t.partners.authenticate({ username: 'hooli', password: `wrong-${i}`, address: '198.51.100.7' }),
          401,
        );
      const throttled = await expectError(
        t.partners.authenticate({ username: 'hooli', password: 'hooli-secret', address: '198.51.100.7' }),
        429,
      );
      assert.ok(
        throttled.body.retry_after! >= 1 && throttled.body.retry_after! <= 300,
        String(throttled.body.retry_after),
      );
      await expectError(
        t.partners.authenticate({ username: 'HOOLI', password: 'hooli-secret', address: '198.51.100.7' }),
        429,
      );
      assert.equal(
        (
          await t.partners.authenticate({
            username: 'pied-piper',
            password: 'pied-piper-secret',
            address: '198.51.100.7',
          })
        ).username,
        'pied-piper',
      );
    });

    it('a password change is in force at once, here and on a replica that had the old one cached', async () => {
      const p = await t.createPartner({ username: 'umbrella', password: 'old-password-1' });
      const replica = new PartnersHandlers(t.ctx);
      const { partnerId, stamp } = await t.partners.authenticate({
        username: 'umbrella',
        password: 'old-password-1',
        address: '198.51.100.7',
      });
      assert.equal(partnerId, p.partner_id);
      await requirePartnerStamp(t.ctx, p.partner_id, stamp);
      assert.equal(
        (await replica.authenticate({ username: 'umbrella', password: 'old-password-1', address: '198.51.100.7' }))
          .partnerId,
        p.partner_id,
      );

      assert.equal(await t.partners.changePassword({ partnerId: p.partner_id, password: 'new-password-2' }), null);
      await expectError(
        t.partners.authenticate({ username: 'umbrella', password: 'old-password-1', address: '198.51.100.7' }),
        401,
      );
      await expectError(
        replica.authenticate({ username: 'umbrella', password: 'old-password-1', address: '198.51.100.7' }),
        401,
      );
      assert.equal(
        (await t.partners.authenticate({ username: 'umbrella', password: 'new-password-2', address: '198.51.100.7' }))
          .partnerId,
        p.partner_id,
      );
      assert.equal(
        (await replica.authenticate({ username: 'umbrella', password: 'new-password-2', address: '198.51.100.7' }))
          .partnerId,
        p.partner_id,
      );
      // what a live event stream opened with the old password carries is refused now (issue 33, item 9)
      await expectError(requirePartnerStamp(t.ctx, p.partner_id, stamp), 401);
      const renewed = await t.partners.authenticate({
        username: 'umbrella',
        password: 'new-password-2',
        address: '198.51.100.7',
      });
      assert.notEqual(renewed.stamp, stamp);
      await requirePartnerStamp(t.ctx, p.partner_id, renewed.stamp);
    });

    it("a username that logged in before stays its own partner: another partner's password, another case or an unknown name is refused", async () => {
      const a = await t.createPartner({ username: 'cyberdyne', password: 'cyberdyne-secret' });
      const b = await t.createPartner({ username: 'weyland', password: 'weyland-secret' });
      const auth = new PartnerAuthentication(t.ctx);
      const as = (username: string, password: string) =>
        auth.authenticate({ username, password, address: '198.51.100.10' });
      const ids = async (username: string, password: string) => {
        const { partnerId, username: name } = await as(username, password);
        return { partnerId, username: name };
      };
      assert.deepEqual(await ids('cyberdyne', 'cyberdyne-secret'), { partnerId: a.partner_id, username: 'cyberdyne' });
      assert.deepEqual(await ids('weyland', 'weyland-secret'), { partnerId: b.partner_id, username: 'weyland' });
      await expectError(as('cyberdyne', 'weyland-secret'), 401);
      await expectError(as('weyland', 'cyberdyne-secret'), 401);
      await expectError(as('CYBERDYNE', 'cyberdyne-secret'), 401);
      await expectError(as('cyberdyne-x', 'cyberdyne-secret'), 401);
      assert.deepEqual(await ids('cyberdyne', 'cyberdyne-secret'), { partnerId: a.partner_id, username: 'cyberdyne' });
      // a password change through another instance (another replica) is in force here at once
      await new PartnersHandlers(t.ctx).changePassword({ partnerId: a.partner_id, password: 'cyberdyne-new-1' });
      await expectError(as('cyberdyne', 'cyberdyne-secret'), 401);
      assert.deepEqual(await ids('cyberdyne', 'cyberdyne-new-1'), { partnerId: a.partner_id, username: 'cyberdyne' });
      assert.deepEqual(await ids('weyland', 'weyland-secret'), { partnerId: b.partner_id, username: 'weyland' });
    });
  });

  describe('credentials carried with a request (PartnerCredentialsGuard)', () => {
    it('authenticates them, takes them out of the payload and sets its partnerId from the authentication, whatever it held', async () => {
      const p = await t.createPartner({ username: 'soylent', password: 'soylent-secret' });
      const other = await t.createPartner({ username: 'tyrell', password: 'tyrell-secret' });
      const guard = new PartnerCredentialsGuard(new PartnerAuthentication(t.ctx));
      const payload: Record<string, unknown> = {
        partnerId: other.partner_id,
        user: 'u1',
        [PARTNER_CREDENTIALS_FIELD]: { username: 'soylent', password: 'soylent-secret', address: '198.51.100.8' },
      };
      await guard.check(payload);
      assert.deepEqual(payload, { partnerId: p.partner_id, user: 'u1' });
    });

    it('refuses as authenticate does (401, then 429) and leaves a payload without them alone', async () => {
      await t.createPartner({ username: 'wonka', password: 'wonka-secret' });
      const guard = new PartnerCredentialsGuard(new PartnerAuthentication(t.ctx));
      const carrying = (password: string) => ({
        partnerId: 'x',
        [PARTNER_CREDENTIALS_FIELD]: { username: 'wonka', password, address: '198.51.100.9' },
      });
      const refused = await expectError(guard.check(carrying('wrong')), 401);
      assert.equal(refused.body.reason, 'invalid partner credentials');
      for (let i = 0; i < 30; i++) await guard.check(carrying(`wrong-${i}`)).catch(() => undefined);
      await expectError(guard.check(carrying('wonka-secret')), 429);
      const plain = { partnerId: 'as-sent', user: 'u1' };
      await guard.check(plain);
      assert.deepEqual(plain, { partnerId: 'as-sent', user: 'u1' });
    });
  });

  describe('settings and limits', () => {
    it('a settings change merges into what was set before', async () => {
      const p = await t.createPartner();
      const first = await t.partners.updateSettings({
        partnerId: p.partner_id,
        settings: { support_email: 'help@example.com' },
      });
      assert.deepEqual(first, { ...DEFAULT_SETTINGS, support_email: 'help@example.com' });
      const second = await t.partners.updateSettings({
        partnerId: p.partner_id,
        settings: { share_link_ttl: 60, sharing_enabled: false },
      });
      assert.deepEqual(second, {
        ...DEFAULT_SETTINGS,
        support_email: 'help@example.com',
        share_link_ttl: 60,
        sharing_enabled: false,
      });
      assert.deepEqual(await t.partners.settings({ partnerId: p.partner_id }), second);
      // an empty change writes nothing
      const head = await t.store.headPosition();
      assert.deepEqual(await t.partners.updateSettings({ partnerId: p.partner_id, settings: {} }), second);
      assert.equal(await t.store.headPosition(), head);
      await expectError(
        t.partners.updateSettings({ partnerId: 'no-such-partner', settings: { share_link_ttl: 1 } }),
        404,
      );
    });

    it('setLimits changes bytes available and merges features; the quota view follows', async () => {
      const p = await t.createPartner({ bytes_available: 1000 * GB, features: { ldap: true } });
      await t.users.create({
        partnerId: p.partner_id,
        username: 'quota-user',
        name: 'Q',
        email: 'q@partners.example',
        plan_id: 1,
        bonus_bytes: 5,
      });
      const limited = await t.partners.setLimits({
        username: p.username,
        bytes_available: 200 * GB,
        features: { netkes: true },
      });
      assert.equal(limited.bytes_available, 200 * GB);
      assert.deepEqual(limited.features, {
        netkes: true,
        ldap: true,
        group_permissions: false,
        signup_restrictions: false,
        email_as_username: false,
      });
      assert.deepEqual(await t.partners.features({ partnerId: p.partner_id }), limited.features);
      assert.deepEqual(await t.partners.quota({ partnerId: p.partner_id }), {
        bytes_available: 200 * GB,
        bytes_allocated: 100 * GB + 5,
        bytes_used: 0,
        share_count: 0,
        device_count: 0,
      });
      // features only: bytes_available stays; null means unlimited
      assert.equal(
        (await t.partners.setLimits({ username: p.username, features: { ldap: false } })).bytes_available,
        200 * GB,
      );
      assert.equal((await t.partners.setLimits({ username: p.username, bytes_available: null })).bytes_available, null);
      assert.equal((await t.partners.find({ username: p.username })).features.ldap, false);

      await expectError(t.partners.setLimits({ username: 'no-such-partner', bytes_available: 1 }), 404);
      const invalid = await expectError(
        t.partners.setLimits({ username: p.username, features: { teleport: true } }),
        400,
      );
      assert.deepEqual(invalid.body.fields, ['teleport']);
    });

    it("the quota view counts the storage catalog's devices, bytes and shares", async () => {
      const p = await t.createPartner();
      await t.users.create({ partnerId: p.partner_id, username: 'uma', name: 'Uma', email: 'uma@partners.example' });
      const userId = await t.userIdOf('uma');
      await t.storageEvents('device-uma-1', [
        {
          type: 'DeviceRegistered',
          data: {
            deviceId: 'uma-1',
            userId,
            partnerId: p.partner_id,
            name: 'pc',
            sysplatform: 'win',
            client_revision: 1,
            at: TEST_NOW,
          },
        },
      ]);
      await t.storageEvents('file-uma-1.a', [
        {
          type: 'FileVersionCommitted',
          data: {
            fileId: 'uma-1.a',
            deviceId: 'uma-1',
            userId,
            partnerId: p.partner_id,
            path: 'a',
            version: 0,
            size: 1234,
            blob: 'x',
            crc32: 0,
            mtime: TEST_NOW,
            ctime: TEST_NOW,
            at: TEST_NOW,
          },
        },
      ]);
      await t.storageEvents(`share-${userId}`, [
        {
          type: 'ShareRoomCreated',
          data: {
            room_key: 'r1',
            name: 'Photos',
            description: '',
            dirs: ['/a'],
            userId,
            partnerId: p.partner_id,
            at: TEST_NOW,
          },
        },
      ]);
      assert.deepEqual(await t.partners.quota({ partnerId: p.partner_id }), {
        bytes_available: null,
        bytes_allocated: 100 * GB,
        bytes_used: 1234,
        share_count: 1,
        device_count: 1,
      });
      await t.users.delete({ partnerId: p.partner_id, user: 'uma' });
      assert.deepEqual(await t.partners.quota({ partnerId: p.partner_id }), {
        bytes_available: null,
        bytes_allocated: 0,
        bytes_used: 0,
        share_count: 0,
        device_count: 0,
      });
    });
  });
});
