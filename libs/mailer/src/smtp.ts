/**
 * SMTP Mailer (nodemailer): `SMTP_URL` (`smtp://user:pass@host:587`, `smtps://...:465`, options as
 * query parameters) says where, the configured sender is the From address. A send that does not
 * finish within `timeoutMs` is refused, so a caller waiting on the bus gets a reason, not a timeout.
 * Failures become MailNotSentError with a reason that names what failed, never the server's
 * credentials or the message.
 */
// nodemailer is loaded with the first message sent, not by every process that imports this library
import type { Transporter } from 'nodemailer';
import { mailFields } from './compose.js';
import { type MailAddress, type Mailer, type MailMessage, MailNotSentError, type SentMail } from './port.js';

export interface SmtpMailerOptions {
  url: string;
  sender: MailAddress;
  /** the whole send, connection included (default 20 s) */
  timeoutMs?: number;
}

interface SmtpFailure {
  code?: string;
  responseCode?: number;
}

/** What the partner is told: which side refused, and the SMTP reply code when there is one. */
export function smtpFailureReason(error: unknown): string {
  const { code, responseCode } = (error ?? {}) as SmtpFailure;
  const reply = responseCode ? ` (${responseCode})` : '';
  switch (code) {
    case 'EENVELOPE':
      return `the mail server refused the recipient or sender${reply}`;
    case 'EAUTH':
    case 'ENOAUTH':
      return `the mail server refused Burrow's login${reply}`;
    case 'ECONNECTION':
    case 'ESOCKET':
    case 'EDNS':
    case 'ETIMEDOUT':
    case 'EGREETING':
      return 'the mail server could not be reached';
    case 'ETLS':
      return 'the TLS connection to the mail server failed';
    case 'EMESSAGE':
    case 'EPROTOCOL':
      return `the mail server refused the message${reply}`;
    default:
      return `the mail server did not accept the message${reply}`;
  }
}

export class SmtpMailer implements Mailer {
  private transportPromise?: Promise<Transporter>;
  private readonly timeoutMs: number;

  constructor(private readonly options: SmtpMailerOptions) {
    this.timeoutMs = options.timeoutMs ?? 20_000;
  }

  private transport(): Promise<Transporter> {
    this.transportPromise ??= import('nodemailer').then(({ createTransport }) => {
      const step = Math.min(10_000, this.timeoutMs);
      // logger off: nodemailer's debug log would carry the message and the AUTH exchange
      return createTransport({
        url: this.options.url,
        connectionTimeout: step,
        greetingTimeout: step,
        socketTimeout: this.timeoutMs,
        logger: false,
        debug: false,
      });
    });
    return this.transportPromise;
  }

  async send(message: MailMessage): Promise<SentMail> {
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new MailNotSentError('the mail server did not answer in time')), this.timeoutMs);
    });
    try {
      const transport = await this.transport();
      const info = await Promise.race([transport.sendMail(mailFields(message, this.options.sender)), deadline]);
      return { messageId: info.messageId };
    } catch (error) {
      if (error instanceof MailNotSentError) throw error;
      throw new MailNotSentError(smtpFailureReason(error));
    } finally {
      clearTimeout(timer);
    }
  }

  async close(): Promise<void> {
    if (this.transportPromise) (await this.transportPromise).close();
  }
}
