/**
 * What the partner management appliance calls on users beyond the spec, over real HTTP:
 * - `POST users/<u>?action=sendactivationemail`: the mail (the embedded mailer's `.eml` files in
 *   the data directory, read back and parsed), the set-password page its link opens (on another
 *   gateway when there are several), the link working once, and the error paths;
 * - `search_by=recently_stopped_uploading=<A>|<B>` with paging, ordering and counting;
 * - device records' `last_login`, and the user's `last_login` following a real device login.
 * Every case also for tenant isolation: another partner's users are 404 or absent.
 */
import assert from 'node:assert/strict';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { before, describe, it } from 'node:test';
import { type ParsedMail, simpleParser } from 'mailparser';
import supertest from 'supertest';
import { createPartner, type PartnerApi } from '../harness/client.js';
import type { TestTarget } from '../harness/standalone.js';
import { storageApi } from '../harness/storage-client.js';
import {
  assertBadFields,
  assertError,
  type CreatedUser,
  createUser,
  DAY,
  eventually,
  getUser,
  now,
  StorageEvents,
  unique,
} from './accounts-fixtures.js';
import type { ScenarioContext } from './scenarios.js';

/** The newest mail to `address` in the target's mail folder (the embedded mailer). */
export async function latestMailTo(target: TestTarget, address: string, timeoutMs = 5000): Promise<ParsedMail> {
  return eventually(async () => {
    const folder = join(target.dataDir, 'mail');
    const names = (await readdir(folder))
      .filter((n) => n.endsWith('.eml'))
      .sort()
      .reverse();
    for (const name of names) {
      const mail = await simpleParser(await readFile(join(folder, name)));
      const to = mail.to && !Array.isArray(mail.to) ? mail.to.value.map((a) => a.address) : [];
      if (to.includes(address)) return mail;
    }
    throw new Error(`no mail to ${address} in ${folder}`);
  }, timeoutMs);
}

/** The set-password link of a mail: its absolute URL and its path. */
export function setPasswordLink(mail: ParsedMail): { url: string; origin: string; path: string } {
  const m = /(https?:\/\/[^/\s]+)(\/set-password\/[A-Za-z0-9._-]+)/.exec(mail.text ?? '');
  assert.ok(m, `no set-password link in:\n${mail.text}`);
  return { url: m[0], origin: m[1], path: m[2] };
}

const form = (password: string, confirm = password) =>
  new URLSearchParams({ username: 'ignored', password, confirm }).toString();

export function applianceUsersScenarios({ target }: ScenarioContext) {
  describe('POST users/<u>?action=sendactivationemail', () => {
    let p: PartnerApi;
    let company: string;
    before(async () => {
      company = `Acme <Backup> & Co ${unique('c')}`;
      ({ api: p } = await createPartner(target(), { company_name: company, brand_identifier: 'acme-brand' }));
    });

    it('mails the user a set-password link from the partner: headers, brand, no password; 200 with where and until when', async () => {
      const u = await createUser(p, { password: undefined });
      assert.ok(u.temp_password);
      const res = await p.post(
        `/users/${u.username}?action=sendactivationemail`,
        { template_name: 'set_password' },
        'application/json',
      );
      assert.equal(res.status, 200, res.text);
      assert.equal(res.body.email, u.user.email);
      assert.ok(
        Number.isInteger(res.body.expires_at) && res.body.expires_at > now() + DAY,
        'expires in days, not at once',
      );
      const mail = await latestMailTo(target(), u.user.email);
      assert.equal(mail.from?.value[0].name, company, 'the partner is the sender');
      assert.match(mail.from?.value[0].address ?? '', /^noreply@/);
      assert.equal(mail.subject, `Set your password for ${company}`);
      assert.equal(String(mail.headers.get('x-burrow-brand')), 'acme-brand');
      assert.ok(mail.messageId);
      assert.match(mail.text ?? '', new RegExp(`Your username: ${u.username}`));
      assert.ok(!JSON.stringify([mail.text, mail.html]).includes(u.temp_password), 'no password in the mail');
      assert.ok(
        String(mail.html).includes('Acme &#60;Backup&#62; &#38; Co'),
        'the company name is escaped in the HTML part',
      );
      const link = setPasswordLink(mail);
      assert.ok(
        target().urls.includes(link.origin),
        `the link points at the gateway the request came to (${link.origin})`,
      );
    });

    it('the link opens an accessible form (no script allowed), refuses a bad password, sets a good one once, on any gateway', async () => {
      const u = await createUser(p, { password: undefined });
      await p.post(`/apis/accounts/v1/users/${u.username}?action=sendactivationemail`).expect(200);
      const { path } = setPasswordLink(await latestMailTo(target(), u.user.email));
      const first = supertest(target().urls[0]);
      const last = supertest(target().urls[target().urls.length - 1]);

      const page = await first.get(path).expect(200);
      assert.match(page.headers['content-type'], /^text\/html; charset=utf-8/);
      const csp = page.headers['content-security-policy'];
      assert.match(csp, /default-src 'none'/);
      assert.doesNotMatch(csp, /script-src|unsafe-inline/, 'no script at all, no inline anything');
      assert.match(csp, /style-src 'sha256-[A-Za-z0-9+/=]+'/);
      assert.equal(page.headers['cache-control'], 'no-store');
      assert.equal(page.headers['referrer-policy'], 'same-origin');
      assert.doesNotMatch(page.text, /<script/i);
      assert.match(page.text, /<html lang="en">/);
      assert.match(page.text, /<label for="password">/);
      assert.match(
        page.text,
        /<input id="password" name="password" type="password" autocomplete="new-password" required minlength="8"/,
      );
      assert.match(page.text, new RegExp(`value="${u.username}"`));
      await first.get(path).expect(200, /Choose your password/);

      const mismatch = await last.post(path).type('form').send(form('a-good-password', 'another-password')).expect(400);
      assert.match(mismatch.text, /role="alert">The two passwords do not match\./);
      assert.match(mismatch.text, /aria-invalid="true"/);
      assert.match(
        (await last.post(path).type('form').send(form('short')).expect(400)).text,
        /must be 8 to 1024 characters/,
      );

      assert.match(
        (await last.post(path).type('form').send(form('users-own-password')).expect(200)).text,
        /Your password is set/,
      );
      await storageApi(target(), u.username, 'users-own-password').putDevice('laptop').expect(200);
      await storageApi(target(), u.username, u.temp_password!).putDevice('laptop').expect(401);

      // spent, on every gateway
      assert.match(
        (await first.post(path).type('form').send(form('a-third-password')).expect(410)).text,
        /expired or has already been used/,
      );
      await last.get(path).expect(410);
      await storageApi(target(), u.username, 'users-own-password').putDevice('laptop').expect(200);
    });

    it('the page escapes what it shows, and refuses an oversized form with 413', async () => {
      const u = await createUser(p, { name: '<script>alert(1)</script> "Jo" & co' });
      await p.post(`/users/${u.username}?action=sendactivationemail`).expect(200);
      const mail = await latestMailTo(target(), u.user.email);
      assert.ok(!String(mail.html).includes('<script>'), 'escaped in the HTML mail');
      const { path } = setPasswordLink(mail);
      const web = supertest(target().url);
      const page = await web.get(path).expect(200);
      assert.ok(!page.text.includes('<script>'));
      assert.ok(page.text.includes('&#60;script&#62;alert(1)&#60;/script&#62; &#34;Jo&#34; &#38; co'));
      await web
        .post(path)
        .type('form')
        .send(form('x'.repeat(20_000)))
        .expect(413);
      await web.get(path).expect(200, /Choose your password/);
    });

    it('a NUL in the form (a raw byte or %00) is a 400 with the form saying why; the link stays usable', async () => {
      const u = await createUser(p);
      await p.post(`/users/${u.username}?action=sendactivationemail`).expect(200);
      const { path } = setPasswordLink(await latestMailTo(target(), u.user.email));
      const web = supertest(target().url);
      for (const body of [
        'password=nul\0password&confirm=nul\0password',
        'password=nul%00password&confirm=nul%00password',
        'password=a-good-password&confirm=a-good-password&username=x%00',
      ]) {
        const res = await web.post(path).type('form').send(body);
        assert.equal(res.status, 400, `${JSON.stringify(body)}: ${res.status} ${res.text}`);
        assert.match(res.headers['content-type'], /^text\/html/);
        assert.match(res.text, /role="alert">NUL characters are not allowed\./);
      }
      await web.get(path).expect(200, /Choose your password/);
      assert.match(
        (await web.post(path).type('form').send(form('a-good-password')).expect(200)).text,
        /Your password is set/,
      );
    });

    it('a newer email replaces the older link; a forged or altered link is 404', async () => {
      const u = await createUser(p);
      await p.post(`/users/${u.username}?action=sendactivationemail`, {}).expect(200);
      const older = setPasswordLink(await latestMailTo(target(), u.user.email)).path;
      await p
        .post(`/users/${u.user.email}?action=sendactivationemail`, { template_name: 'activation', extra: 'ignored' })
        .expect(200);
      const mail = await latestMailTo(target(), u.user.email);
      assert.equal(mail.subject, `Your ${company} backup account is ready`);
      const newer = setPasswordLink(mail).path;
      assert.notEqual(newer, older);
      const web = supertest(target().url);
      await web.get(older).expect(410);
      await web.get(newer).expect(200);
      const altered = newer.replace(/\.(\d+)\./, (_m, e: string) => `.${Number(e) + 1}.`);
      await web.get(altered).expect(404);
      await web.post(altered).type('form').send(form('some-password-1')).expect(404);
      await web.get('/set-password/not-a-token').expect(404, /This link is not valid/);
    });

    it("404 for an unknown user or another partner's user; 400 for a bad body or action; nothing is mailed", async () => {
      const u = await createUser(p);
      const { api: other } = await createPartner(target());
      assertError(await p.post('/users/no-such-user?action=sendactivationemail', {}), 404);
      assertError(await other.post(`/users/${u.username}?action=sendactivationemail`, {}), 404);
      assertError(await other.post(`/users/${u.user.email}?action=sendactivationemail`), 404);
      assertBadFields(await p.post(`/users/${u.username}?action=sendactivationemail`, { template_name: 5 }), [
        'template_name',
      ]);
      assertBadFields(await p.post(`/users/${u.username}?action=sendactivationemails`, {}), ['action']);
      assertError(
        await p
          .post(`/users/${u.username}?action=sendactivationemail`)
          .set('Content-Type', 'application/json')
          .send('{"template_name":'),
        400,
      );
      await assert.rejects(latestMailTo(target(), u.user.email, 0), /no mail to/);
    });
  });

  describe('GET users/?search_by=recently_stopped_uploading=<A>|<B>', () => {
    let p: PartnerApi;
    let other: PartnerApi;
    const users: Record<string, CreatedUser> = {};
    before(async () => {
      ({ api: p } = await createPartner(target()));
      ({ api: other } = await createPartner(target()));
      const tag = unique('s');
      // usernames sort a..e; backups: a 10 days ago, b 2 days ago (still active), c 100 days ago,
      // d 40 days ago by a committed file only, e never
      for (const name of ['a', 'b', 'c', 'd', 'e']) users[name] = await createUser(p, { username: `${name}${tag}` });
      users.x = await createUser(other, { username: `x${tag}` });
      const at = now();
      const storage = await StorageEvents.open(target());
      try {
        const device = async (u: CreatedUser) =>
          storage.registerDevice(await storage.idsOf(u.username), { name: 'pc', at: at - 200 * DAY });
        await storage.backupCompleted(await device(users.a), at - 10 * DAY);
        await storage.backupCompleted(await device(users.b), at - 2 * DAY);
        await storage.backupCompleted(await device(users.c), at - 100 * DAY);
        await storage.commitFile(await device(users.d), 'pc/doc.txt', 10, at - 40 * DAY);
        await device(users.e);
        await storage.backupCompleted(await device(users.x), at - 10 * DAY);
      } finally {
        await storage.close();
      }
      await eventually(async () => assert.equal((await getUser(p, users.d.username)).bytes_stored, 10));
      await eventually(async () => assert.equal((await getUser(other, users.x.username)).num_devices, 1));
    });
    const names = async (api: PartnerApi, query: string) =>
      ((await api.get(`/users/?${query}`).expect(200)).body as { username: string }[]).map((u) => u.username);
    const window = 'search_by=recently_stopped_uploading%3D7776000%7C259200';

    it('lists users whose latest backup is within the last A seconds but not the last B (completed backups and committed files)', async () => {
      await eventually(async () => assert.deepEqual(await names(p, window), [users.a.username, users.d.username]));
      // the raw form the appliance builds works as well
      assert.deepEqual(await names(p, 'search_by=recently_stopped_uploading=7776000|259200'), [
        users.a.username,
        users.d.username,
      ]);
      assert.deepEqual(
        await names(p, 'search_by=recently_stopped_uploading%3D31536000%7C0'),
        ['a', 'b', 'c', 'd'].map((n) => users[n].username),
      );
      assert.deepEqual(
        await names(p, 'search_by=recently_stopped_uploading%3D259200%7C7776000'),
        [],
        'an empty window',
      );
    });

    it("combines with limit, offset, order_by and user_count; other partners' users never appear", async () => {
      assert.deepEqual(await names(p, `${window}&limit=1`), [users.a.username]);
      assert.deepEqual(await names(p, `${window}&limit=1&offset=1`), [users.d.username]);
      assert.deepEqual(await names(p, `${window}&order_by=-username`), [users.d.username, users.a.username]);
      assert.deepEqual((await p.get(`/apis/accounts/v1/users/?${window}&action=user_count`).expect(200)).body, {
        user_count: 2,
      });
      assert.deepEqual(await names(other, window), [users.x.username]);
    });

    it('a malformed window is 400 naming search_by', async () => {
      for (const bad of [
        'recently_stopped_uploading%3D7776000',
        'recently_stopped_uploading%3E1%7C2',
        'recently_stopped_uploading%3D-1%7C2',
        'recently_stopped_uploading%3Da%7Cb',
      ]) {
        assertBadFields(await p.get(`/users/?search_by=${bad}`), ['search_by']);
      }
    });
  });

  describe("device last_login and the user's last_login", () => {
    it('a real device login sets both; the device record carries last_login beside lastlogin; 404 across partners', async () => {
      const { api: p } = await createPartner(target());
      const { api: other } = await createPartner(target());
      const u = await createUser(p);
      assert.equal((await getUser(p, u.username)).last_login, null);
      const before = now();
      await storageApi(target(), u.username, 'user-password-1')
        .putDevice('desk', { sysplatform: 'linux', client_revision: 1200 })
        .expect(200);
      const [desk] = await eventually(async () => {
        const devices = (await p.get(`/users/${u.username}/devices`).expect(200)).body as Record<string, unknown>[];
        assert.equal(devices.length, 1);
        return devices;
      });
      assert.ok(Number.isInteger(desk.last_login) && (desk.last_login as number) >= before, JSON.stringify(desk));
      assert.equal(desk.last_login, desk.lastlogin);
      assert.equal((await getUser(p, u.username)).last_login, desk.last_login);
      assert.deepEqual(
        ((await p.get(`/users/?search_by=last_login%3E%3D${before}`).expect(200)).body as { username: string }[]).map(
          (x) => x.username,
        ),
        [u.username],
      );
      assertError(await other.get(`/users/${u.username}/devices`), 404);
    });
  });
}
