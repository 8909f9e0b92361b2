/**
 * Share room passwords for the storage catalog (which owns the rooms and keeps the hash in their
 * events): hashing a new one (scrypt, like every password) and checking one a visitor gives,
 * through the failed-login throttle (realm `share-room`, counted per room and per address) and
 * the cache of verified credentials, exactly as logins are.
 */
import {
  type CheckSharePasswordRequest,
  type HashSharePasswordReply,
  type HashSharePasswordRequest,
  parseRequest,
  SharePassword,
  Subjects,
} from '@burrow/contracts';
import { Controller, Inject } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { hashPassword } from '../logins/password-hash.js';
import { ACCOUNTS_CONTEXT, type AccountsContext } from '../context.js';
import { CredentialCheck } from '../logins/credential-check.js';

@Controller()
export class SharePasswordsHandlers {
  private readonly credentials: CredentialCheck;

  constructor(@Inject(ACCOUNTS_CONTEXT) private readonly ctx: AccountsContext) {
    this.credentials = new CredentialCheck(ctx, 'share-room', 'wrong password for this share room');
  }

  @MessagePattern(Subjects.accounts.hashSharePassword)
  async hash(@Payload() req: HashSharePasswordRequest): Promise<HashSharePasswordReply> {
    const password = parseRequest(SharePassword, req.password, { field: 'password' });
    if (password === null) throw new Error('hashSharePassword needs a password');
    return { hash: await hashPassword(password) };
  }

  /** `{ ok: true }` when the password opens the room; 401 otherwise, 429 while throttled. */
  @MessagePattern(Subjects.accounts.checkSharePassword)
  async check(@Payload() req: CheckSharePasswordRequest): Promise<{ ok: true }> {
    const room = typeof req.room === 'string' ? req.room : '';
    await this.credentials.check(
      { name: room, password: req.password, address: req.address },
      async () => (room && typeof req.hash === 'string' ? { id: room } : null),
      async () => (typeof req.hash === 'string' ? req.hash : null),
    );
    return { ok: true };
  }
}
