/**
 * Runs the Mailer contract against both adapters: the `.eml` folder, and SMTP against a real SMTP
 * server started here (`smtp-server`, which speaks the protocol; nothing leaves the machine). Then
 * what only one adapter does: SMTP failures become a reason (refused recipient, unreachable or
 * silent server, refused login) that carries no credentials; files are owner-only and the log
 * names the file, not the message.
 */
import assert from 'node:assert/strict';
import { mkdtemp, readdir, readFile, rm, stat } from 'node:fs/promises';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { EmlFolderMailer, MailNotSentError, SmtpMailer } from '@burrow/mailer';
import { SMTPServer } from 'smtp-server';
import { mailerContract } from './mailer.contract.js';
import { rejection } from './util.js';

const SENDER = { name: 'Burrow', address: 'noreply@burrow.example' };

interface TestSmtp {
  url: string;
  messages: Buffer[];
  close(): Promise<void>;
}

/** A real SMTP server on a free port: no TLS, optional login; refuses `refuse@...` recipients. */
async function startSmtp(options: { login?: { user: string; pass: string } } = {}): Promise<TestSmtp> {
  const messages: Buffer[] = [];
  const server = new SMTPServer({
    disabledCommands: ['STARTTLS'],
    authOptional: !options.login,
    logger: false,
    onAuth(auth, _session, done) {
      if (options.login && auth.username === options.login.user && auth.password === options.login.pass)
        return done(null, { user: auth.username });
      return done(Object.assign(new Error('Invalid username or password'), { responseCode: 535 }));
    },
    onRcptTo(address, _session, done) {
      if (address.address.startsWith('refuse@'))
        return done(Object.assign(new Error('No such mailbox'), { responseCode: 550 }));
      return done();
    },
    onData(stream, _session, done) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        messages.push(Buffer.concat(chunks));
        done();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.server.address() as { port: number };
  const auth = options.login ? `${options.login.user}:${options.login.pass}@` : '';
  return {
    url: `smtp://${auth}127.0.0.1:${port}`,
    messages,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

mailerContract('EmlFolderMailer', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'burrow-mail-'));
  const folder = join(dir, 'mail');
  const mailer = new EmlFolderMailer(folder, SENDER);
  return {
    mailer,
    sender: SENDER.address,
    received: async () => {
      const names = (await readdir(folder).catch(() => [] as string[])).filter((n) => n.endsWith('.eml')).sort();
      return Promise.all(names.map((n) => readFile(join(folder, n))));
    },
    cleanup: async () => {
      await mailer.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
});

mailerContract('SmtpMailer', async () => {
  const smtp = await startSmtp();
  const mailer = new SmtpMailer({ url: smtp.url, sender: SENDER });
  return {
    mailer,
    sender: SENDER.address,
    received: async () => smtp.messages,
    cleanup: async () => {
      await mailer.close();
      await smtp.close();
    },
  };
});

describe('SmtpMailer failures', { timeout: 30_000 }, () => {
  let smtp: TestSmtp;
  const login = { user: 'burrow', pass: 'smtp-secret-pass' };
  before(async () => {
    smtp = await startSmtp({ login });
  });
  after(async () => {
    await smtp.close();
  });
  const message = (to = 'jane@example.com') => ({ to: { address: to }, subject: 's', text: 't' });
  const notSent = async (promise: Promise<unknown>) => {
    const error = await rejection(promise);
    assert.ok(error instanceof MailNotSentError, String(error));
    assert.ok(
      !error.reason.includes(login.pass) && !error.reason.includes('127.0.0.1'),
      `no credentials or host in "${error.reason}"`,
    );
    return error.reason;
  };

  it('logs in with the credentials of SMTP_URL and delivers', async () => {
    const mailer = new SmtpMailer({ url: smtp.url, sender: SENDER });
    await mailer.send(message());
    await mailer.close();
    assert.equal(smtp.messages.length, 1);
  });

  it('a refused recipient, a refused login, an unreachable or a silent server are each a reason', async () => {
    const mailer = new SmtpMailer({ url: smtp.url, sender: SENDER });
    assert.match(await notSent(mailer.send(message('refuse@example.com'))), /refused the recipient.*\(550\)/);
    await mailer.close();

    const badLogin = new SmtpMailer({ url: smtp.url.replace(login.pass, 'wrong-pass'), sender: SENDER });
    assert.match(await notSent(badLogin.send(message())), /refused Burrow's login \(535\)/);
    await badLogin.close();

    // a port nobody listens on
    const closed: Server = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as { port: number }).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const unreachable = new SmtpMailer({ url: `smtp://127.0.0.1:${port}`, sender: SENDER });
    assert.match(await notSent(unreachable.send(message())), /could not be reached/);
    await unreachable.close();

    // a server that accepts the connection and never greets
    const silent = createServer(() => undefined);
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const quiet = new SmtpMailer({
      url: `smtp://127.0.0.1:${(silent.address() as { port: number }).port}`,
      sender: SENDER,
      timeoutMs: 300,
    });
    const started = Date.now();
    assert.match(await notSent(quiet.send(message())), /did not answer in time|could not be reached/);
    assert.ok(Date.now() - started < 5000, 'gives up at its own deadline');
    await quiet.close();
    silent.close();
    assert.equal(smtp.messages.length, 1, 'nothing more arrived');
  });
});

describe('EmlFolderMailer files', () => {
  it('writes owner-only files in an owner-only folder and logs the file, not the message', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'burrow-mail-'));
    try {
      const logged: { details: object; message: string }[] = [];
      const mailer = new EmlFolderMailer(join(dir, 'mail'), SENDER, {
        info: (details, message) => logged.push({ details, message }),
      });
      const sent = await mailer.send({
        to: { address: 'jane@example.com' },
        subject: 'Set your password',
        text: 'https://x.example/set-password/SECRET-TOKEN',
      });
      assert.ok(sent.file?.startsWith(join(dir, 'mail')));
      assert.equal((await stat(sent.file!)).mode & 0o777, 0o600);
      assert.equal((await stat(join(dir, 'mail'))).mode & 0o777, 0o700);
      assert.match(await readFile(sent.file!, 'utf8'), /SECRET-TOKEN/);
      assert.equal(logged.length, 1);
      assert.equal((logged[0].details as { file: string }).file, sent.file);
      assert.ok(!JSON.stringify(logged).includes('SECRET-TOKEN'), 'the log never carries the message body');
      await mailer.close();
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
