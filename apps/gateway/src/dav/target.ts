/**
 * What a WebDAV URL names: `/dav/<username or email>/` is the user's root, whose members are the
 * devices; `/dav/<user>/<device>/<path>` a folder or file on a device. Paths are decoded once and
 * checked by the shared path rules (`..`, `.`, empty segments, encoded slashes and NUL are a 400),
 * in the request URL and in a `Destination` header alike.
 */
import { badRequest, type DeviceRef } from '@burrow/contracts';
import type { Request } from 'express';
import { encodeSegment, parseMountedPath, parsePathAfter } from '../storage-access/storage-path.js';

export const DAV_MOUNT = 'dav';

export interface DavTarget {
  /** the user segment as given ('' when the URL names no user) */
  user: string;
  /** null: the user's root */
  device: string | null;
  /** within the device, without a trailing slash ('' is the device root) */
  path: string;
  /** the URL ended with `/` */
  slash: boolean;
}

function toTarget(segments: string[], slash: boolean): DavTarget {
  const [user = '', device = null, ...rest] = segments;
  return { user, device, path: rest.join('/'), slash };
}

export const requestTarget = (req: Request): DavTarget => {
  const { segments, folder } = parseMountedPath(req, DAV_MOUNT);
  return toTarget(segments, folder);
};

/**
 * The `Destination` of a COPY or MOVE: an absolute URI (any host: the client names this server as
 * it reaches it) or an absolute path, under `/dav/`. Taken as sent, never normalised, so `..`
 * cannot climb out of it.
 */
export function destinationTarget(req: Request): DavTarget {
  const header = req.headers.destination;
  if (typeof header !== 'string' || header === '')
    throw badRequest('a Destination header is required', ['Destination']);
  return hrefTarget(header, 'Destination');
}

/** What a URL in a header names (a Destination, an If header's resource tag). */
export function hrefTarget(href: string, field: string): DavTarget {
  const path = /^[a-z][a-z0-9+.-]*:\/\//i.test(href) ? href.replace(/^[a-z][a-z0-9+.-]*:\/\/[^/]*/i, '') : href;
  const raw = path.split(/[?#]/)[0];
  if (!raw.startsWith(`/${DAV_MOUNT}/`)) throw badRequest(`the ${field} is not on this WebDAV mount`, [field]);
  const { segments, folder } = parsePathAfter(raw, DAV_MOUNT);
  return toTarget(segments, folder);
}

/** The device and path a catalog request names. */
export const devicePathOf = (userId: string, t: DavTarget): DeviceRef & { path: string } => ({
  userId,
  device: t.device!,
  path: t.path,
});

/** The canonical href of a resource: every segment percent-encoded, collections ending with `/`. */
export function hrefOf(user: string, device: string | null, path: string, collection: boolean): string {
  const segments = [DAV_MOUNT, user, ...(device === null ? [] : [device]), ...(path ? path.split('/') : [])];
  return `/${segments.map((s, i) => (i === 0 ? s : encodeSegment(s))).join('/')}${collection ? '/' : ''}`;
}

/** The href of a lock's resource (its lock root), as `user` names the user. */
export function lockRootOf(user: string, lock: { path: string; collection: boolean }): string {
  if (lock.path === '') return hrefOf(user, null, '', true);
  const [device, ...rest] = lock.path.split('/');
  return hrefOf(user, device, rest.join('/'), lock.collection);
}

/** The key a lock is kept under: device and path, without a trailing slash ('' is the user's root). */
export const lockPathOf = (t: Pick<DavTarget, 'device' | 'path'>) =>
  t.device === null ? '' : t.path ? `${t.device}/${t.path}` : t.device;
