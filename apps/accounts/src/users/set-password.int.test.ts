/**
 * Activation / set-password email and its link, through the accounts handlers with the embedded
 * mailer (`.eml` files, read back and parsed) and a fixed clock: what the mail says and carries,
 * that the link sets the password once, expires, is replaced by a newer one and withdrawn by a
 * password change, that forged tokens are refused, that a mail that cannot be sent is a 409 and
 * changes nothing, that two replicas cannot both use one link, and that no event or log holds the
 * link or the password.
 */
import { Streams } from '@burrow/contracts';
import { SmtpMailer } from '@burrow/mailer';
import { simpleParser, type ParsedMail } from 'mailparser';
import assert from 'node:assert/strict';
import { readdir, readFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import {
  expectError,
  restart,
  startTestAccounts,
  type TestAccounts,
  TEST_LINK_TTL,
  TEST_MAIL_SENDER,
  TEST_NOW,
  TEST_PUBLIC_URL,
} from '../testing/test-context.js';
import { UserLoginHandlers } from './user-login.handlers.js';

const address = '198.51.100.4';

describe('activation email and set-password links', () => {
  let t: TestAccounts;
  let now = TEST_NOW;
  let partnerId: string;
  let otherId: string;

  before(async () => {
    t = await startTestAccounts({ now: () => now });
    partnerId = (await t.createPartner({ company_name: 'Acme Backup Ltd', brand_identifier: 'acme' })).partner_id;
    otherId = (await t.createPartner()).partner_id;
    await t.partners.updateSettings({ partnerId, settings: { support_email: 'help@acme.example' } });
  });
  after(async () => {
    await t.close();
  });

  /** Every mail written so far, oldest first. */
  async function mails(): Promise<ParsedMail[]> {
    const folder = join(t.dir, 'mail');
    const names = (await readdir(folder).catch(() => [] as string[])).sort();
    return Promise.all(names.map(async (n) => simpleParser(await readFile(join(folder, n)))));
  }
  const latestMail = async () => (await mails()).at(-1)!;
  const linkIn = (mail: ParsedMail) => {
    const m = /https:\/\/backup\.example\.test\/set-password\/(\S+)/.exec(mail.text ?? '');
    assert.ok(m, 'the mail carries a link to the set-password page');
    return m[1];
  };
  async function newUser(username: string, password?: string) {
    return t.users.create({
      partnerId,
      username,
      name: `${username} Example`,
      email: `${username}@mail.example`,
      ...(password ? { password } : {}),
    });
  }
  const login = (user: string, password: string) =>
    new UserLoginHandlers(t.ctx).authenticate({ login: user, password, address });

  it('mails the user a link to the set-password page, with the partner in From, Subject, text and headers, and no password', async () => {
    const created = await newUser('amelia');
    const before = (await mails()).length;
    const reply = await t.setPassword.send({ partnerId, user: 'amelia', template_name: 'set_password' });
    assert.deepEqual(reply, { email: 'amelia@mail.example', expires_at: TEST_NOW + TEST_LINK_TTL });
    const all = await mails();
    assert.equal(all.length, before + 1);
    const mail = all.at(-1)!;
    assert.deepEqual(mail.from?.value, [{ name: 'Acme Backup Ltd', address: TEST_MAIL_SENDER.address }]);
    assert.deepEqual(mail.to && !Array.isArray(mail.to) ? mail.to.value : null, [
      { name: 'amelia Example', address: 'amelia@mail.example' },
    ]);
    assert.deepEqual(
      mail.replyTo?.value,
      [{ name: 'Acme Backup Ltd', address: 'help@acme.example' }],
      "replies go to the partner's support address",
    );
    assert.equal(mail.subject, 'Set your password for Acme Backup Ltd');
    assert.equal(String(mail.headers.get('x-burrow-brand')), 'acme');
    assert.match(mail.text ?? '', /Your username: amelia/);
    assert.match(mail.text ?? '', /Acme Backup Ltd \(acme\)/);
    const token = linkIn(mail);
    assert.match(String(mail.html), new RegExp(`href="${TEST_PUBLIC_URL}/set-password/${token}"`));
    const raw = JSON.stringify([mail.text, mail.html, mail.headers]);
    assert.ok(!raw.includes(created.temp_password!), 'the temporary password is not in the mail');
    assert.equal(await t.setPassword.check({ token }).then((i) => i.username), 'amelia');
  });

  it('the link sets the password once: the new one logs in, the old does not, and the link is spent', async () => {
    const created = await newUser('bruno');
    await t.setPassword.send({ partnerId, user: 'bruno' });
    const token = linkIn(await latestMail());
    assert.deepEqual(await t.setPassword.check({ token }), {
      username: 'bruno',
      name: 'bruno Example',
      company_name: 'Acme Backup Ltd',
      expires_at: TEST_NOW + TEST_LINK_TTL,
    });
    assert.deepEqual(await t.setPassword.set({ token, password: 'brunos-new-password' }), { username: 'bruno' });
    assert.equal((await login('bruno', 'brunos-new-password')).username, 'bruno');
    await expectError(login('bruno', created.temp_password!), 401);
    assert.match(
      (await expectError(t.setPassword.set({ token, password: 'another-password' }), 410)).message,
      /expired or has already been used/,
    );
    await expectError(t.setPassword.check({ token }), 410);
    assert.equal(
      (await login('bruno', 'brunos-new-password')).username,
      'bruno',
      'the refused second use changed nothing',
    );
    const events = await t.store.readStream(Streams.user(await t.userIdOf('bruno')));
    assert.deepEqual(
      events.slice(-3).map((e) => e.type),
      ['SetPasswordLinkIssued', 'SetPasswordLinkUsed', 'UserPasswordChanged'],
    );
  });

  it('works until it expires: usable at its expiry second, 410 after', async () => {
    await newUser('chen');
    await t.setPassword.send({ partnerId, user: 'chen' });
    const token = linkIn(await latestMail());
    now = TEST_NOW + TEST_LINK_TTL + 1;
    try {
      await expectError(t.setPassword.check({ token }), 410);
      await expectError(t.setPassword.set({ token, password: 'too-late-password' }), 410);
      now = TEST_NOW + TEST_LINK_TTL;
      assert.equal((await t.setPassword.set({ token, password: 'just-in-time-pw' })).username, 'chen');
    } finally {
      now = TEST_NOW;
    }
  });

  it('a newer email replaces the link of an older one; a password set another way withdraws it', async () => {
    await newUser('dora');
    await t.setPassword.send({ partnerId, user: 'dora' });
    const first = linkIn(await latestMail());
    await t.setPassword.send({ partnerId, user: 'DORA', template_name: 'activation' });
    const mail = await latestMail();
    assert.equal(mail.subject, 'Your Acme Backup Ltd backup account is ready', 'the activation wording');
    const second = linkIn(mail);
    assert.notEqual(first, second);
    await expectError(t.setPassword.check({ token: first }), 410);
    assert.equal((await t.setPassword.check({ token: second })).username, 'dora');
    await t.users.update({ partnerId, user: 'dora', changes: { password: 'set-by-the-partner' } });
    await expectError(t.setPassword.set({ token: second, password: 'dora-wants-this' }), 410);
    assert.equal((await login('dora', 'set-by-the-partner')).username, 'dora');
    // an unknown template name gets the default wording
    await t.setPassword.send({ partnerId, user: 'dora', template_name: 'no-such-template' });
    assert.equal((await latestMail()).subject, 'Set your password for Acme Backup Ltd');
  });

  it('refuses tokens it did not sign (404) and links of a deleted user (410)', async () => {
    await newUser('emil');
    await t.setPassword.send({ partnerId, user: 'emil' });
    const token = linkIn(await latestMail());
    const [userId, nonce, expiresAt, mac] = token.split('.');
    for (const forged of [
      '',
      'garbage',
      `${userId}.${nonce}.${Number(expiresAt) + 86_400}.${mac}`,
      `${userId}.${nonce.replace(/^./, (c) => (c === 'A' ? 'B' : 'A'))}.${expiresAt}.${mac}`,
      `${userId}.${nonce}.${expiresAt}.${mac.replace(/^./, (c) => (c === 'A' ? 'B' : 'A'))}`,
      `${token}x`,
      42 as unknown as string,
    ]) {
      await expectError(t.setPassword.check({ token: forged }), 404);
      await expectError(t.setPassword.set({ token: forged, password: 'forged-password' }), 404);
    }
    await t.users.delete({ partnerId, user: 'emil' });
    await expectError(t.setPassword.check({ token }), 410);
    await expectError(t.setPassword.set({ token, password: 'ghost-password' }), 410);
  });

  it("404 for an unknown user or another partner's user, and no mail is sent", async () => {
    await newUser('farid');
    const before = (await mails()).length;
    await expectError(t.setPassword.send({ partnerId, user: 'nobody-here' }), 404);
    await expectError(t.setPassword.send({ partnerId: otherId, user: 'farid' }), 404);
    await expectError(t.setPassword.send({ partnerId: otherId, user: 'farid@mail.example' }), 404);
    assert.equal((await mails()).length, before);
  });

  it('a mail that cannot be sent is a 409 with the reason, and the earlier link keeps working', async () => {
    await newUser('greta');
    await t.setPassword.send({ partnerId, user: 'greta' });
    const token = linkIn(await latestMail());
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as { port: number }).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const working = t.ctx.mailer;
    t.ctx.mailer = new SmtpMailer({ url: `smtp://127.0.0.1:${port}`, sender: TEST_MAIL_SENDER });
    try {
      const error = await expectError(t.setPassword.send({ partnerId, user: 'greta' }), 409);
      assert.deepEqual(error.body, {
        reason: 'the activation email could not be sent: the mail server could not be reached',
        conflicts: ['email'],
      });
    } finally {
      await t.ctx.mailer.close();
      t.ctx.mailer = working;
    }
    assert.equal((await t.setPassword.check({ token })).username, 'greta', 'nothing was recorded');
  });

  it('without BURROW_PUBLIC_URL the link uses the origin the partner came to; with neither it is a 409', async () => {
    await newUser('hana');
    const links = t.ctx.setPasswordLinks;
    t.ctx.setPasswordLinks = { ttlSeconds: links.ttlSeconds, limit: links.limit };
    try {
      await t.setPassword.send({ partnerId, user: 'hana', origin: 'http://gateway.internal:8080' });
      assert.match((await latestMail()).text ?? '', /http:\/\/gateway\.internal:8080\/set-password\/\S+/);
      const error = await expectError(t.setPassword.send({ partnerId, user: 'hana' }), 409);
      assert.match(error.message, /BURROW_PUBLIC_URL/);
    } finally {
      t.ctx.setPasswordLinks = links;
    }
  });

  it('neither the link, its token, the password nor the temporary password is in any event', async () => {
    const created = await newUser('ivan');
    await t.setPassword.send({ partnerId, user: 'ivan' });
    const token = linkIn(await latestMail());
    await t.setPassword.set({ token, password: 'ivans-secret-password' });
    const events = JSON.stringify(await t.store.readStream(Streams.user(await t.userIdOf('ivan'))));
    const [, , , mac] = token.split('.');
    for (const secret of [token, mac, 'ivans-secret-password', created.temp_password!])
      assert.ok(!events.includes(secret), `no ${secret.slice(0, 6)}... in events`);
  });

  it('two replicas using one link at once: exactly one sets the password; a restart still refuses it', async () => {
    await newUser('jonas');
    await t.setPassword.send({ partnerId, user: 'jonas' });
    const token = linkIn(await latestMail());
    const [a, b] = await restart(t, 2);
    t = a;
    const results = await Promise.allSettled([
      a.setPassword.set({ token, password: 'password-from-a' }),
      b.setPassword.set({ token, password: 'password-from-b' }),
    ]);
    assert.deepEqual(results.map((r) => r.status).sort(), ['fulfilled', 'rejected']);
    const refused = results.find((r) => r.status === 'rejected') as PromiseRejectedResult;
    assert.equal(refused.reason.status, 410);
    const winner = results[0].status === 'fulfilled' ? 'password-from-a' : 'password-from-b';
    await b.close({ keepFiles: true });
    [t] = await restart(a, 1);
    await expectError(t.setPassword.set({ token, password: 'third-attempt-pw' }), 410);
    assert.equal((await login('jonas', winner)).username, 'jonas');
  });
});
