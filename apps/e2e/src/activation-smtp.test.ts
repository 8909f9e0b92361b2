/**
 * The activation email over real SMTP: Burrow configured with SMTP_URL / SMTP_FROM sends to an SMTP
 * server started here (`smtp-server`). What arrives (envelope and headers, the partner's name and
 * brand, no password), the link working once in the gateway, a refused recipient and an
 * unreachable server as 409 with the reason. Standalone, and as separate processes on NATS when a
 * server is available, where the processes' logs (at debug level) are checked to hold neither the
 * link's token nor the password.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type ParsedMail, simpleParser } from 'mailparser';
import supertest from 'supertest';
import { createPartner, type PartnerApi } from './harness/client.js';
import { type MultiProcessTarget, startMultiProcess } from './harness/multi-process.js';
import { startSmtpServer, type TestSmtpServer } from './harness/smtp.js';
import { startStandalone, type TestTarget } from './harness/standalone.js';
import { storageApi } from './harness/storage-client.js';
import { setPasswordLink } from './scenarios/appliance-users.scenarios.js';
import { assertConflict, createUser, unique } from './scenarios/accounts-fixtures.js';

const SENDER = 'backups@burrow.example';
const form = (password: string) => new URLSearchParams({ password, confirm: password }).toString();

function activationOverSmtp(mode: string, start: (env: Record<string, string>) => Promise<TestTarget>, skip?: string) {
  describe(`activation email over SMTP (${mode})`, { skip, timeout: 120_000 }, () => {
    let smtp: TestSmtpServer;
    let target: TestTarget;
    let p: PartnerApi;
    const company = `Umbrella Storage ${unique('c')}`;
    const secrets: string[] = [];

    before(async () => {
      smtp = await startSmtpServer();
      target = await start({ SMTP_URL: smtp.url, SMTP_FROM: `"Burrow Service" <${SENDER}>` });
      ({ api: p } = await createPartner(target, { company_name: company, brand_identifier: 'umbrella' }));
      await p.post('/partner/settings', { support_email: 'support@umbrella.example' }).expect(200);
    });
    after(async () => {
      await target?.close();
      await smtp?.close();
    });

    const lastMail = async (): Promise<ParsedMail> => simpleParser(smtp.received.at(-1)!.raw);

    it("the SMTP server receives the mail: envelope, headers, the partner's name and brand, no password", async () => {
      const u = await createUser(p, { password: undefined });
      secrets.push(u.temp_password!);
      const before = smtp.received.length;
      const res = await p
        .post(`/users/${u.username}?action=sendactivationemail`, { template_name: 'set_password' })
        .expect(200);
      assert.equal(res.body.email, u.user.email);
      assert.equal(smtp.received.length, before + 1, 'sent before the reply');
      const { from, to, raw } = smtp.received.at(-1)!;
      assert.equal(from, SENDER, 'MAIL FROM is SMTP_FROM');
      assert.deepEqual(to, [u.user.email]);
      const mail = await simpleParser(raw);
      assert.deepEqual(mail.from?.value, [{ name: company, address: SENDER }], 'the partner is the display name');
      assert.deepEqual(mail.to && !Array.isArray(mail.to) ? mail.to.value : null, [
        { name: u.user.name, address: u.user.email },
      ]);
      assert.deepEqual(mail.replyTo?.value, [{ name: company, address: 'support@umbrella.example' }]);
      assert.equal(mail.subject, `Set your password for ${company}`);
      assert.equal(String(mail.headers.get('x-burrow-brand')), 'umbrella');
      assert.ok(mail.messageId && mail.date);
      assert.match(
        String(mail.headers.get('content-type') ? (mail.headers.get('content-type') as { value: string }).value : ''),
        /multipart\/alternative/,
      );
      assert.match(mail.text ?? '', new RegExp(`${company} \\(umbrella\\)`));
      assert.ok(!raw.toString('utf8').includes(u.temp_password!), 'no password anywhere in the raw message');
      assert.ok(!/password:\s*\S{8,}/i.test(mail.text ?? ''), 'no password field');
    });

    it('the link works once in the gateway; the user then logs in with the password they chose', async () => {
      const u = await createUser(p, { password: undefined });
      await p.post(`/users/${u.user.email}?action=sendactivationemail`).expect(200);
      const link = setPasswordLink(await lastMail());
      secrets.push(link.path.split('/').pop()!, 'chosen-over-smtp-1');
      const gateways = target.urls.map((url) => supertest(url));
      await gateways[0].get(link.path).expect(200, /Choose your password/);
      await gateways
        .at(-1)!
        .post(link.path)
        .type('form')
        .send(form('chosen-over-smtp-1'))
        .expect(200, /Your password is set/);
      await gateways[0].post(link.path).type('form').send(form('chosen-over-smtp-2')).expect(410);
      await storageApi(target, u.username, 'chosen-over-smtp-1').putDevice('laptop').expect(200);
      await storageApi(target, u.username, 'chosen-over-smtp-2').putDevice('laptop').expect(401);
    });

    it('a recipient the server refuses is 409 with the reason, and the earlier link keeps working', async () => {
      const u = await createUser(p, { username: unique('r'), email: `${unique('r')}@mail.example` });
      await p.post(`/users/${u.username}?action=sendactivationemail`).expect(200);
      const earlier = setPasswordLink(await lastMail());
      await p.post(`/users/${u.username}`, { email: `${u.username}@refuse.example` }).expect(200);
      const refused = await p.post(`/users/${u.username}?action=sendactivationemail`, {});
      assertConflict(refused, 'email');
      assert.match(refused.body.reason, /could not be sent: the mail server refused the recipient or sender \(550\)/);
      await supertest(target.url).get(earlier.path).expect(200);
    });

    it('an unreachable mail server is 409, not a 5xx', async () => {
      const u = await createUser(p);
      await smtp.close();
      const res = await p.post(`/users/${u.username}?action=sendactivationemail`, {});
      assertConflict(res, 'email');
      assert.match(res.body.reason, /the mail server could not be reached/);
    });

    it(
      "no process logged the link's token or a password (multi-process, debug logs)",
      { skip: mode === 'multi-process' ? false : "the processes' output is captured in multi-process mode" },
      () => {
        const mp = target as MultiProcessTarget;
        const output = mp
          .processes()
          .map((proc) => proc.output)
          .join('\n');
        assert.match(output, /activation email sent/, 'the logs were captured');
        assert.match(output, /\/set-password\/\[token\]/, 'the request log shows the page without its token');
        for (const secret of secrets)
          assert.ok(!output.includes(secret), `a secret (${secret.slice(0, 4)}...) reached the logs`);
      },
    );
  });
}

activationOverSmtp('standalone', (env) => startStandalone(env));
const natsUrl = process.env.NATS_URL;
activationOverSmtp(
  'multi-process',
  (env) => startMultiProcess(natsUrl!, { ...env, LOG_LEVEL: 'debug' }),
  natsUrl ? undefined : 'NATS_URL not set and no nats-server found',
);
