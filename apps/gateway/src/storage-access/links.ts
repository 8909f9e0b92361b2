/**
 * Single-file share links: `POST <file url>` answers `/link/<token>/<file name>`, valid 3 days
 * (the spec's limit), for that file's version at the time (a later upload does not change what the
 * link serves). The token is signed; it names the user, the stamp of their password (a password
 * change or a disable revokes links as it ends sessions), the device, the path, the version, and
 * the life of the file (`FileIncarnation`): once the device is removed or the file deleted, the
 * link is gone for good, whatever is uploaded to that name later.
 */
import {
  type AuthenticatedUser,
  badRequest,
  Expiry,
  type FileEntry,
  type FileIncarnation,
  forbidden,
  Subjects,
} from '@burrow/contracts';
import type { RpcClient } from '@burrow/transport';
import { LINK_MOUNT } from './mounts.js';
import type { TokenSigner } from './signed-tokens.js';

export const LINK_TTL_SECONDS = 3 * 24 * 60 * 60;

export interface LinkClaims {
  u: string;
  st: string;
  d: string;
  p: string;
  v: number;
  /** the device's incarnation (its id) */
  di: string;
  /** the version that began the file's life */
  g: number;
}

/** The life of the file a link or extension names; null for a token without one (made before they were named: refused). */
export const claimedIncarnation = (claims: { di?: unknown; g?: unknown }): FileIncarnation | null =>
  typeof claims.di === 'string' && Number.isInteger(claims.g)
    ? { deviceId: claims.di, since: claims.g as number }
    : null;

/** The link's path: the token, then the file's name (so a browser saves it under that name). */
export const linkPath = (token: string, name: string) => `/${LINK_MOUNT}/${token}/${encodeURIComponent(name)}`;

/**
 * Makes a link to a file's version (the latest when `version` is undefined) as `user`: refused
 * when sharing is off for them; an unknown file is the catalog's 404. Answers the link's path.
 */
/**
 * How long a link made now lives: 3 days unless its owner chose (`?expires=`: a future moment, or
 * never: a century, the token's own limit); 400 `expires` for a past or malformed one.
 */
export function linkTtlSeconds(expires: string | undefined, now: number): number {
  if (expires === undefined) return LINK_TTL_SECONDS;
  const parsed = Expiry.safeParse(expires.trim());
  if (!parsed.success)
    throw badRequest('expires must be unix seconds, an ISO 8601 date or date-time, or never', ['expires']);
  if (parsed.data === null) return LINK_NEVER_SECONDS;
  if (parsed.data <= now) throw badRequest('expires must be in the future (or never)', ['expires']);
  return parsed.data - now;
}

/** A link "that never expires" is signed for a century. */
export const LINK_NEVER_SECONDS = 100 * 365 * 24 * 60 * 60;

export async function createFileLink(
  rpc: RpcClient,
  signer: TokenSigner,
  user: AuthenticatedUser,
  device: string,
  path: string,
  version: number | undefined,
  ttlSeconds = LINK_TTL_SECONDS,
): Promise<string> {
  if (!user.sharing_enabled) throw forbidden('sharing is turned off for this account');
  const file = await rpc.call<FileEntry>(Subjects.storage.fileVersion, { userId: user.userId, device, path, version });
  const life = file.incarnation!;
  const token = signer.sign<LinkClaims>(
    'link',
    { u: user.userId, st: user.sessionStamp, d: device, p: path, v: file.version, di: life.deviceId, g: life.since },
    ttlSeconds,
  );
  return linkPath(token, file.name);
}
