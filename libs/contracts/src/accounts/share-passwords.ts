/**
 * Share room passwords as the accounts service handles them for the storage catalog, which owns
 * the rooms: the accounts service is where credentials are hashed (scrypt), checked, cached and
 * throttled like every login, so room passwords are too. The catalog keeps the hash in the room's
 * events and asks here to make one and to check a password against it.
 */
import { z } from 'zod';
import { PASSWORD_MAX_LENGTH, PASSWORD_MIN_LENGTH } from './limits.js';

/** A room password as its owner or partner sets it: the rules of every password; null or "" removes it. */
export const SharePassword = z
  .union([
    z.null(),
    z.literal('').transform(() => null),
    z
      .string()
      .min(PASSWORD_MIN_LENGTH)
      .max(PASSWORD_MAX_LENGTH)
      .refine((s) => !s.includes('\0'), 'a password cannot contain NUL characters'),
  ])
  .describe(`the room's password (${PASSWORD_MIN_LENGTH} to ${PASSWORD_MAX_LENGTH} characters); null or "" removes it`);

export interface HashSharePasswordRequest {
  password: string;
}

export interface HashSharePasswordReply {
  hash: string;
}

export interface CheckSharePasswordRequest {
  /** the room, as the throttle counts it: `<share id>/<room key>` */
  room: string;
  /** the room's current password hash (from the catalog's read model) */
  hash: string;
  password: string;
  /** the client's address as the gateway saw it */
  address?: string;
}
