/**
 * Embedded Mailer: each message is composed as SMTP would carry it and written to its own `.eml`
 * file (owner-only) in a folder under the data directory; the file's path is logged, never its
 * content (a message may hold a set-password link). Nothing leaves the machine.
 *
 * The folder is pruned: `.eml` files older than `maxAgeMs` (BURROW_MAIL_OUTBOX_MAX_AGE_DAYS) are
 * deleted on the first send of the process and then at most once an hour, on a send, so the folder
 * does not grow without end (set-password links in it expire within days anyway).
 */
import { randomBytes } from 'node:crypto';
import { chmod, mkdir, readdir, stat, unlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
// nodemailer is loaded with the first message, not by every process that imports this library
import type { Transporter } from 'nodemailer';
import { mailFields } from './compose.js';
import {
  type MailAddress,
  type Mailer,
  type MailLog,
  type MailMessage,
  MailNotSentError,
  type SentMail,
} from './port.js';

export class EmlFolderMailer implements Mailer {
  private sequence = 0;
  private prunedAt = 0;
  private composerPromise?: Promise<Transporter>;

  constructor(
    readonly folder: string,
    private readonly sender: MailAddress,
    private readonly log?: MailLog,
    /** `.eml` files older than this are deleted (undefined or 0: kept) */
    private readonly maxAgeMs?: number,
    private readonly now: () => number = Date.now,
  ) {}

  /** Deletes the folder's `.eml` files older than the maximum age; answers how many. */
  async prune(): Promise<number> {
    if (!this.maxAgeMs) return 0;
    const cutoff = this.now() - this.maxAgeMs;
    let removed = 0;
    let names: string[];
    try {
      names = await readdir(this.folder);
    } catch {
      return 0;
    }
    for (const name of names) {
      if (!name.endsWith('.eml')) continue;
      const file = join(this.folder, name);
      try {
        if ((await stat(file)).mtimeMs < cutoff) {
          await unlink(file);
          removed += 1;
        }
      } catch {
        // gone meanwhile, or not ours to remove: the next prune tries again
      }
    }
    if (removed) this.log?.info({ folder: this.folder, removed }, 'old mail files removed from the mail folder');
    return removed;
  }

  async send(message: MailMessage): Promise<SentMail> {
    this.composerPromise ??= import('nodemailer').then(({ createTransport }) =>
      createTransport({ streamTransport: true, buffer: true, newline: 'windows' }),
    );
    const info = await (await this.composerPromise).sendMail(mailFields(message, this.sender));
    // names sort in the order this mailer wrote them: time to the millisecond, then a sequence
    const stamp = new Date().toISOString().replace(/[-:]/g, '');
    this.sequence += 1;
    const file = join(
      this.folder,
      `${stamp}-${String(this.sequence).padStart(6, '0')}-${randomBytes(4).toString('hex')}.eml`,
    );
    try {
      await mkdir(this.folder, { recursive: true, mode: 0o700 });
      await chmod(this.folder, 0o700);
      await writeFile(file, info.message as Buffer, { mode: 0o600, flag: 'wx' });
    } catch (error) {
      throw new MailNotSentError(
        `the message could not be written to the mail folder (${(error as NodeJS.ErrnoException).code ?? 'error'})`,
      );
    }
    this.log?.info(
      { file, to: message.to.address, subject: message.subject },
      'mail written to a file (no SMTP_URL set)',
    );
    if (this.maxAgeMs && this.now() - this.prunedAt >= 3_600_000) {
      this.prunedAt = this.now();
      await this.prune();
    }
    return { messageId: info.messageId, file };
  }

  async close(): Promise<void> {
    if (this.composerPromise) (await this.composerPromise).close();
  }
}
