/**
 * LOCK and UNLOCK (RFC 4918 §9.10, §9.11): exclusive or shared write locks, Depth 0 or infinity,
 * with a timeout the client refreshes (a LOCK without a body and the token in its If header).
 * LOCK on an unmapped URL makes an empty file (201), as macOS Finder, the Windows mini-redirector
 * and GNOME Files expect when they create one.
 */
import { badRequest, DomainError } from '@burrow/contracts';
import type { DavCall } from './context.js';
import { submittedTokens, parseIf } from './if-header.js';
import { type DavLock, LOCK_OWNER_MAX_BYTES, LOCK_TIMEOUT_DEFAULT, LOCK_TIMEOUT_MAX } from './locks.js';
import { activeLockXml } from './properties.js';
import { putFile } from './put.js';
import { readPath } from './resources.js';
import { lockPathOf, lockRootOf } from './target.js';
import { guardWrite } from './write-guard.js';
import { child, DAV, parseXml, serializeContent, XmlBudget } from './xml.js';

/** `Timeout: Second-600, Infinite`: the first the server can honour, capped. */
export function timeoutOf(header: string | undefined): number {
  for (const part of (header ?? '').split(',')) {
    const value = part.trim();
    if (/^infinite$/i.test(value)) return LOCK_TIMEOUT_MAX;
    const m = /^second-(\d{1,12})$/i.exec(value);
    if (m) return Math.max(1, Math.min(Number(m[1]), LOCK_TIMEOUT_MAX));
  }
  return LOCK_TIMEOUT_DEFAULT;
}

function sendLock(call: DavCall, lock: DavLock, owner: string, status: number): void {
  const shown = { ...lock, root: lockRootOf(call.target.user, lock), owner };
  call.res
    .status(status)
    .set({ 'Content-Type': 'application/xml; charset=utf-8', 'Lock-Token': `<${lock.token}>` })
    .end(
      `<?xml version="1.0" encoding="utf-8"?>\n<D:prop xmlns:D="DAV:"><D:lockdiscovery>${activeLockXml(shown)}</D:lockdiscovery></D:prop>\n`,
    );
}

export async function lock(call: DavCall, body: string): Promise<void> {
  const { target, req } = call;
  const userId = call.user.userId;
  if (target.device === null)
    throw new DomainError(403, { reason: 'lock a device, folder or file, not your whole storage' });
  const timeout = timeoutOf(req.headers.timeout as string | undefined);
  const info = parseXml(body);
  const path = lockPathOf(target);
  if (!info) {
    // a refresh: the lock's token in the If header
    const [token] = submittedTokens(parseIf(req.headers.if as string | undefined));
    if (!token) throw badRequest('a LOCK refresh names its lock token in the If header', ['If']);
    const lists = await call.locks.list(userId);
    const lock = lists.find(
      (l) => l.token === token && (l.path === path || (l.depth === 'infinity' && path.startsWith(`${l.path}/`))),
    );
    const refreshed = lock ? await call.locks.refresh(userId, token, timeout) : null;
    if (!refreshed) throw new DomainError(412, { reason: 'no such lock on this resource' });
    const owners = await call.locks.owners(userId, [refreshed]);
    return sendLock(call, refreshed, owners.get(token) ?? '', 200);
  }
  if (info.ns !== DAV || info.name !== 'lockinfo') throw badRequest('a LOCK body is a DAV:lockinfo element', ['body']);
  const scopeElement = child(info, DAV, 'lockscope');
  const scope =
    scopeElement && child(scopeElement, DAV, 'shared')
      ? 'shared'
      : scopeElement && child(scopeElement, DAV, 'exclusive')
        ? 'exclusive'
        : null;
  const type = child(info, DAV, 'locktype');
  if (!scope || !type || !child(type, DAV, 'write'))
    throw badRequest('a lock is an exclusive or shared write lock', ['body']);
  const depth = String(req.headers.depth ?? 'infinity')
    .trim()
    .toLowerCase();
  if (depth !== '0' && depth !== 'infinity') throw badRequest('a LOCK has Depth 0 or infinity', ['Depth']);
  const ownerElement = child(info, DAV, 'owner');
  // bounded before anything is made or stored: refused (413) as soon as its XML passes the limit
  const owner = ownerElement
    ? serializeContent(
        ownerElement,
        new XmlBudget(LOCK_OWNER_MAX_BYTES, `a lock's owner takes at most ${LOCK_OWNER_MAX_BYTES} bytes as XML`),
      )
    : '';
  // what is there decides the lock root's href; nothing there: an empty file is made
  let collection = target.slash || !target.path;
  let created = false;
  if (target.path) {
    try {
      collection = (await readPath(call, target)).kind === 'folder';
    } catch (error) {
      if (!(error instanceof DomainError && error.status === 404) || target.slash) throw error;
      await putFile(call, null);
      created = true;
    }
  }
  if (!created) await guardWrite(call, []);
  const granted = await call.locks.grant(userId, {
    path,
    collection,
    depth: depth === '0' ? '0' : 'infinity',
    scope,
    owner,
    timeout,
  });
  sendLock(call, granted, owner, created ? 201 : 200);
}

export async function unlock(call: DavCall): Promise<void> {
  const header = String(call.req.headers['lock-token'] ?? '').trim();
  const token = /^<(.+)>$/.exec(header)?.[1];
  if (!token) throw badRequest('UNLOCK names its lock in a Lock-Token header: <opaquelocktoken:...>', ['Lock-Token']);
  const path = lockPathOf(call.target);
  const lock = (await call.locks.list(call.user.userId)).find((l) => l.token === token);
  if (
    !lock ||
    !(lock.path === path || (lock.depth === 'infinity' && (lock.path === '' || path.startsWith(`${lock.path}/`))))
  ) {
    throw new DomainError(409, { reason: 'no such lock on this resource', conflicts: ['path'] });
  }
  await call.locks.release(call.user.userId, token);
  call.res.status(204).end();
}
