/**
 * A real SMTP server for tests (`smtp-server`): no TLS, no login needed, every message kept raw
 * with its envelope; recipients at `refuse.example` are refused with 550. Nothing leaves the host.
 */
import { SMTPServer } from 'smtp-server';

export interface ReceivedMail {
  from: string;
  to: string[];
  raw: Buffer;
}

export interface TestSmtpServer {
  url: string;
  received: ReceivedMail[];
  close(): Promise<void>;
}

export async function startSmtpServer(): Promise<TestSmtpServer> {
  const received: ReceivedMail[] = [];
  const server = new SMTPServer({
    disabledCommands: ['STARTTLS', 'AUTH'],
    logger: false,
    onRcptTo(address, _session, done) {
      if (address.address.endsWith('@refuse.example'))
        return done(Object.assign(new Error('No such mailbox here'), { responseCode: 550 }));
      return done();
    },
    onData(stream, session, done) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        const envelope = session.envelope;
        received.push({
          from: envelope.mailFrom ? envelope.mailFrom.address : '',
          to: envelope.rcptTo.map((r) => r.address),
          raw: Buffer.concat(chunks),
        });
        done();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.server.address() as { port: number };
  let closed = false;
  return {
    url: `smtp://127.0.0.1:${port}`,
    received,
    close: () =>
      closed ? Promise.resolve() : new Promise<void>((resolve) => server.close(() => ((closed = true), resolve()))),
  };
}
