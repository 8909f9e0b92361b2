/**
 * DELETE: a file, a folder with everything in it, or a whole device, as the storage interface
 * deletes (hidden at once, versions kept until purged). Locks on it and below it go with it.
 */
import { DomainError, Subjects } from '@burrow/contracts';
import type { DavCall } from './context.js';
import { etagOf, readPath } from './resources.js';
import { lockPathOf } from './target.js';
import { guardWrite } from './write-guard.js';

export async function del(call: DavCall): Promise<void> {
  const { target } = call;
  const userId = call.user.userId;
  if (target.device === null)
    throw new DomainError(403, { reason: 'your storage is not deleted over WebDAV: delete its devices' });
  if (!target.path) {
    await guardWrite(call, [{ target, tree: true }]);
    call.hints.forgetDevice(userId, target.device);
    await call.rpc.call(Subjects.storage.removeDevice, { userId, device: target.device });
    call.hints.forgetDevice(userId, target.device);
  } else {
    // what the path names (a URL without a slash may name a folder)
    const stat = await readPath(call, target);
    await guardWrite(call, [{ target, tree: true }], { etag: stat.kind === 'file' ? etagOf(stat.file.blob) : null });
    const path = stat.kind === 'file' ? stat.file.path : stat.folder.path;
    await call.rpc.call(Subjects.storage.deletePath, { userId, device: target.device, path });
  }
  await call.locks.forget(userId, lockPathOf(target));
  call.res.status(204).end();
}
