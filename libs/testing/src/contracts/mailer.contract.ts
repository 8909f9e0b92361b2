/**
 * The Mailer contract: every adapter (the `.eml` folder, SMTP) delivers the message it is given as
 * the same MIME message: To, From (the configured address under the given display name), Subject,
 * both bodies and the extra headers, non-ASCII text intact, a Message-ID of its own each time.
 * `received()` gives back what arrived (the files written, or what an SMTP server received).
 */
import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, it } from 'node:test';
import type { Mailer } from '@burrow/mailer';
import { type ParsedMail, simpleParser } from 'mailparser';

export interface MailerFixture {
  mailer: Mailer;
  /** the configured sender address */
  sender: string;
  /** every raw message that arrived so far, oldest first */
  received(): Promise<Buffer[]>;
  cleanup(): Promise<void>;
}
export type MailerFactory = () => Promise<MailerFixture>;

const headerText = (mail: ParsedMail, name: string) => String(mail.headers.get(name) ?? '');

export function mailerContract(name: string, factory: MailerFactory): void {
  describe(`Mailer contract: ${name}`, { timeout: 30_000 }, () => {
    let fixture: MailerFixture;
    beforeEach(async () => {
      fixture = await factory();
    });
    afterEach(async () => {
      await fixture.cleanup();
    });
    const only = async () => {
      const all = await fixture.received();
      assert.equal(all.length, 1, 'one message arrived');
      return simpleParser(all[0]);
    };

    it('delivers To, From (configured address, given name), Reply-To, Subject, both bodies and extra headers', async () => {
      const sent = await fixture.mailer.send({
        to: { name: 'Jane Doe', address: 'jane@example.com' },
        fromName: 'Acme Backup',
        replyTo: { name: 'Acme Support', address: 'help@acme.example' },
        subject: 'Set your password',
        text: 'Hello Jane,\nfollow https://backup.example/set-password/abc\n',
        html: '<p>Hello Jane, <a href="https://backup.example/set-password/abc">set it</a></p>',
        headers: { 'X-Burrow-Brand': 'acme' },
      });
      const mail = await only();
      assert.deepEqual(mail.to && !Array.isArray(mail.to) ? mail.to.value : null, [
        { name: 'Jane Doe', address: 'jane@example.com' },
      ]);
      assert.deepEqual(mail.from?.value, [{ name: 'Acme Backup', address: fixture.sender }]);
      assert.deepEqual(mail.replyTo?.value, [{ name: 'Acme Support', address: 'help@acme.example' }]);
      assert.equal(mail.subject, 'Set your password');
      assert.equal(mail.text, 'Hello Jane,\nfollow https://backup.example/set-password/abc\n');
      assert.match(String(mail.html), /<a href="https:\/\/backup\.example\/set-password\/abc">set it<\/a>/);
      assert.equal(headerText(mail, 'x-burrow-brand'), 'acme');
      assert.equal(mail.messageId, sent.messageId, 'send returns the Message-ID the message carries');
      assert.ok(mail.date instanceof Date);
    });

    it('non-ASCII names, subject and text arrive intact; a message without html is text only', async () => {
      await fixture.mailer.send({
        to: { name: 'Zoë Ångström', address: 'zoe@example.com' },
        fromName: 'Société Générale 🛡',
        subject: 'Mot de passe — définir',
        text: 'Bonjour Zoë ✓',
      });
      const mail = await only();
      assert.equal(mail.to && !Array.isArray(mail.to) ? mail.to.value[0].name : '', 'Zoë Ångström');
      assert.equal(mail.from?.value[0].name, 'Société Générale 🛡');
      assert.equal(mail.subject, 'Mot de passe — définir');
      assert.equal(mail.text?.trim(), 'Bonjour Zoë ✓');
      assert.equal(mail.html, false);
    });

    it('each message is delivered on its own, with its own Message-ID', async () => {
      const a = await fixture.mailer.send({ to: { address: 'a@example.com' }, subject: 'one', text: 'one' });
      const b = await fixture.mailer.send({ to: { address: 'b@example.com' }, subject: 'two', text: 'two' });
      assert.notEqual(a.messageId, b.messageId);
      const mails = await Promise.all((await fixture.received()).map((raw) => simpleParser(raw)));
      assert.deepEqual(mails.map((m) => m.subject).sort(), ['one', 'two']);
      assert.deepEqual(mails.map((m) => m.messageId).sort(), [a.messageId, b.messageId].sort());
    });
  });
}
