/**
 * When a folder may be made (WebDAV MKCOL, and the destination of a COPY or MOVE): not over an
 * existing file or folder (405, RFC 4918 §9.3.1), and only inside an existing folder (409: WebDAV
 * makes no missing folders, unlike the storage interface's uploads).
 */
import { DomainError } from '@burrow/contracts';

export interface PlaceFacts {
  /** a live file or a folder is at the path */
  taken: boolean;
  /** the folder that would hold it exists (the device root always does) */
  parent: boolean;
}

export const notAllowed = (reason: string) => new DomainError(405, { reason });
export const missingParent = (reason: string) => new DomainError(409, { reason, conflicts: ['path'] });

export function checkNewFolder(path: string, facts: PlaceFacts): void {
  if (facts.taken) throw notAllowed(`${path} exists`);
  if (!facts.parent) throw missingParent(`the folder that would hold ${path} does not exist`);
}
