/**
 * The Mailer port: hand one message to whatever delivers mail. Adapters: SMTP (nodemailer, for
 * production: `SMTP_URL`) and a folder of `.eml` files (the embedded default: every message is
 * written under the data directory, where an operator can open it).
 *
 * The message is given as parts; the adapter composes the MIME message (both adapters use
 * nodemailer's composer, so the file is byte for byte what SMTP would have carried). The sender's
 * address is the adapter's (configured once); a message may only give the sender's display name.
 */

export interface MailAddress {
  name?: string;
  address: string;
}

export interface MailMessage {
  to: MailAddress;
  /** the sender's display name (e.g. the partner's company); the address is the configured one */
  fromName?: string;
  /** where replies go (e.g. the partner's support address) */
  replyTo?: MailAddress;
  subject: string;
  text: string;
  html?: string;
  /** extra headers (`X-...`) */
  headers?: Record<string, string>;
}

export interface SentMail {
  /** the Message-ID header the message was sent with */
  messageId: string;
  /** the embedded adapter: the file it wrote */
  file?: string;
}

export interface Mailer {
  /** Resolves once the message is accepted for delivery; MailNotSentError when it cannot be. */
  send(message: MailMessage): Promise<SentMail>;
  close(): Promise<void>;
}

/** The message was not accepted. `reason` is fit to show the partner: no credentials, no content. */
export class MailNotSentError extends Error {
  constructor(readonly reason: string) {
    super(reason);
    this.name = 'MailNotSentError';
  }
}

/** What an adapter may tell the operator (the embedded one logs where each file went). */
export interface MailLog {
  info(details: object, message: string): void;
}
