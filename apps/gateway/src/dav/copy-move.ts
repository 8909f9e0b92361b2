/**
 * COPY and MOVE (RFC 4918 §9.8, §9.9) within the user's storage, metadata only (the catalog's
 * transfer: no byte is copied). `Destination` is checked like any URL (traversal is a 400) and must
 * be the user's own storage (anyone else's is a 404); devices themselves are not copied or moved
 * (403). `Overwrite: F` keeps an existing destination (412). 201 for a new resource, 204 for a
 * replaced one. A big folder's transfer takes several bus calls, each bounded in time.
 */
import { badRequest, forbidden, notFound, Subjects, type TransferReply, type TransferRequest } from '@burrow/contracts';
import { namesUser } from '../storage-access/storage-access.js';
import type { DavCall } from './context.js';
import { destinationTarget, lockPathOf } from './target.js';
import { guardWrite } from './write-guard.js';

export async function copyOrMove(call: DavCall, mode: 'copy' | 'move'): Promise<void> {
  const { req, target } = call;
  const destination = destinationTarget(req);
  if (!namesUser(destination.user, call.user)) throw notFound('no such storage');
  if (target.device === null || !target.path || destination.device === null || !destination.path) {
    throw forbidden('devices are not copied or moved: copy or move what is in them');
  }
  const depth = String(req.headers.depth ?? 'infinity')
    .trim()
    .toLowerCase();
  if (depth !== 'infinity' && !(mode === 'copy' && depth === '0'))
    throw badRequest(mode === 'copy' ? 'Depth is 0 or infinity' : 'a MOVE has Depth: infinity', ['Depth']);
  const overwriteHeader = String(req.headers.overwrite ?? 'T')
    .trim()
    .toUpperCase();
  if (overwriteHeader !== 'T' && overwriteHeader !== 'F') throw badRequest('Overwrite is T or F', ['Overwrite']);
  await guardWrite(
    call,
    mode === 'move'
      ? [
          { target, tree: true },
          { target: destination, tree: true },
        ]
      : [{ target: destination, tree: true }],
  );
  const request: TransferRequest = {
    userId: call.user.userId,
    mode,
    overwrite: overwriteHeader === 'T',
    shallow: depth === '0',
    from: { device: target.device, path: target.slash ? `${target.path}/` : target.path },
    to: { device: destination.device, path: destination.slash ? `${destination.path}/` : destination.path },
  };
  let reply = await call.rpc.call<TransferReply>(Subjects.storage.transfer, request);
  while (reply.next)
    reply = await call.rpc.call<TransferReply>(Subjects.storage.transfer, { ...request, cursor: reply.next });
  if (mode === 'move') await call.locks.forget(call.user.userId, lockPathOf(target));
  call.res.status(reply.replaced ? 204 : 201).setHeader('Content-Length', '0');
  call.res.end();
}
