/**
 * Whether a COPY or MOVE may go ahead (RFC 4918 §9.8, §9.9), from what is at the source and the
 * destination: the same resource is a 403, and so is a folder into itself or over a folder that
 * holds it; a destination whose folder does not exist is a 409; one that exists is a 412 unless
 * overwriting is allowed.
 */
import { DomainError, forbidden } from '@burrow/contracts';
import { missingParent } from '../folders/folder-rules.js';

export interface TransferFacts {
  /** canonical paths (a folder's ends with `/`) on their devices */
  source: { deviceId: string; path: string; kind: 'file' | 'folder' };
  destination: { deviceId: string; path: string };
  /** what is at the destination's name now */
  existing: 'file' | 'folder' | null;
  /** the folder that would hold the destination exists */
  parent: boolean;
  overwrite: boolean;
}

export const preconditionFailed = (reason: string) => new DomainError(412, { reason });

const strip = (path: string) => (path.endsWith('/') ? path.slice(0, -1) : path);

export function checkTransfer(f: TransferFacts): void {
  const sameDevice = f.source.deviceId === f.destination.deviceId;
  const from = strip(f.source.path);
  const to = strip(f.destination.path);
  if (sameDevice && from === to) throw forbidden('the source and the destination are the same');
  if (sameDevice && f.source.kind === 'folder' && to.startsWith(`${from}/`))
    throw forbidden('a folder cannot go into itself');
  if (sameDevice && from.startsWith(`${to}/`)) throw forbidden('the destination holds the source');
  if (!f.parent) throw missingParent(`the folder that would hold ${to} does not exist`);
  if (f.existing && !f.overwrite) throw preconditionFailed(`${to} exists and Overwrite is F`);
}
