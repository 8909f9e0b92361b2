/**
 * MKCOL (RFC 4918 §9.3): a folder inside an existing one, or, at the top, a new device (devices
 * are the user root's collections). A body is a 415; an existing name a 405; a missing parent a 409.
 */
import { DomainError, Subjects } from '@burrow/contracts';
import type { DavCall } from './context.js';
import { guardWrite } from './write-guard.js';

export async function mkcol(call: DavCall, hasBody: boolean): Promise<void> {
  const { target } = call;
  if (hasBody) throw new DomainError(415, { reason: 'MKCOL takes no body' });
  if (target.device === null) throw new DomainError(405, { reason: 'your storage exists' });
  await guardWrite(call, [{ target }]);
  if (!target.path) {
    await call.rpc.call(Subjects.storage.registerDevice, {
      userId: call.user.userId,
      partnerId: call.user.partnerId,
      device: target.device,
      createOnly: true,
    });
  } else {
    await call.rpc.call(Subjects.storage.makeFolder, {
      userId: call.user.userId,
      device: target.device,
      path: `${target.path}/`,
    });
  }
  call.res.status(201).setHeader('Content-Length', '0');
  call.res.end();
}
