/**
 * What every WebDAV write checks before it changes anything: the request's `If` header holds (412
 * otherwise), and it submits the token of every live lock covering what it changes, the whole
 * subtree for a folder it deletes or moves (423 otherwise, naming the lock's root).
 */
import { DomainError } from '@burrow/contracts';
import { namesUser } from '../storage-access/storage-access.js';
import type { DavCall } from './context.js';
import { ifHolds, type IfList, parseIf, type ResourceState, submittedTokens } from './if-header.js';
import { below, covers, type DavLock } from './locks.js';
import { etagOf, readPath } from './resources.js';
import { type DavTarget, hrefTarget, lockPathOf, lockRootOf } from './target.js';

export interface Change {
  target: DavTarget;
  /** the change reaches everything below it (a folder deleted, moved, or copied over) */
  tree?: boolean;
}

/** 423 with the lock-token-submitted precondition: the DomainError's body names the locked root. */
export class LockedError extends DomainError {
  constructor(readonly root: string) {
    super(423, { reason: `locked: submit the lock token of ${root} in the If header` });
  }
}

/** The entity tag of what a target names now (null: nothing there, or a collection). */
async function currentEtag(call: DavCall, target: DavTarget): Promise<string | null> {
  if (!target.device || !target.path) return null;
  try {
    const stat = await readPath(call, target);
    return stat.kind === 'file' ? etagOf(stat.file.blob) : null;
  } catch (error) {
    if (error instanceof DomainError && error.status === 404) return null;
    throw error;
  }
}

/**
 * Checks the request's writes; `etag` is the request target's current entity tag when the caller
 * knows it already (saves reading it again). Returns the user's live locks.
 */
export async function guardWrite(
  call: DavCall,
  changes: Change[],
  known?: { etag: string | null },
): Promise<DavLock[]> {
  const lists: IfList[] | null = parseIf(call.req.headers.if as string | undefined);
  const locks = await call.locks.list(call.user.userId);
  if (lists) {
    const stateOf = async (resource: string | null): Promise<ResourceState> => {
      let target = call.target;
      if (resource !== null) {
        try {
          target = hrefTarget(resource, 'If');
        } catch {
          return { tokens: [], etag: null };
        }
        if (!namesUser(target.user, call.user)) return { tokens: [], etag: null };
      }
      const path = lockPathOf(target);
      const tokens = locks.filter((l) => covers(l, path)).map((l) => l.token);
      const needsEtag = lists.some((l) => l.resource === resource && l.conditions.some((c) => c.etag !== undefined));
      const etag = !needsEtag ? null : resource === null && known ? known.etag : await currentEtag(call, target);
      return { tokens, etag };
    };
    if (!(await ifHolds(lists, stateOf))) throw new DomainError(412, { reason: 'the If header does not hold' });
  }
  const submitted = submittedTokens(lists);
  for (const change of changes) {
    const path = lockPathOf(change.target);
    const applying = locks.filter((l) => covers(l, path) || (change.tree === true && below(l, path)));
    const missing = applying.find(
      (l) =>
        !submitted.includes(l.token) &&
        !applying.some((other) => other.scope === 'shared' && l.scope === 'shared' && submitted.includes(other.token)),
    );
    if (missing) throw new LockedError(lockRootOf(call.target.user, missing));
  }
  return locks;
}
