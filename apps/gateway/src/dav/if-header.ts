/**
 * The WebDAV `If` header (RFC 4918 §10.4): lists of conditions on lock tokens and entity tags,
 * untagged (about the request's resource) or tagged with a resource's URL. The header holds if any
 * list does; a list holds if all its conditions do. A request whose `If` header does not hold is a
 * 412; the lock tokens it names are the ones it submits (what a write needs to pass a lock).
 */
import { badRequest } from '@burrow/contracts';

export interface Condition {
  not: boolean;
  /** a state token (`opaquelocktoken:...`, `DAV:no-lock`) */
  token?: string;
  /** an entity tag as sent, quotes included */
  etag?: string;
}

export interface IfList {
  /** the tagged resource's URL as sent, or null for the request's resource */
  resource: string | null;
  conditions: Condition[];
}

/** The header's lists, or null when there is none; a malformed header is a 400. */
export function parseIf(header: string | undefined): IfList[] | null {
  if (header === undefined || header.trim() === '') return null;
  const lists: IfList[] = [];
  let resource: string | null = null;
  let i = 0;
  const fail = () => badRequest('the If header is malformed', ['If']);
  const skip = () => {
    while (i < header.length && /\s/.test(header[i])) i++;
  };
  const until = (close: string) => {
    const end = header.indexOf(close, i);
    if (end < 0) throw fail();
    const value = header.slice(i, end);
    i = end + 1;
    return value;
  };
  for (skip(); i < header.length; skip()) {
    if (header[i] === '<') {
      i++;
      resource = until('>');
      continue;
    }
    if (header[i] !== '(') throw fail();
    i++;
    const conditions: Condition[] = [];
    for (skip(); header[i] !== ')'; skip()) {
      if (i >= header.length) throw fail();
      let not = false;
      if (header.slice(i, i + 3).toLowerCase() === 'not') {
        not = true;
        i += 3;
        skip();
      }
      if (header[i] === '<') {
        i++;
        conditions.push({ not, token: until('>') });
      } else if (header[i] === '[') {
        i++;
        conditions.push({ not, etag: until(']').trim() });
      } else throw fail();
    }
    i++;
    if (!conditions.length) throw fail();
    lists.push({ resource, conditions });
  }
  if (!lists.length) throw fail();
  return lists;
}

/** The lock tokens the header names (submitted, when it holds). */
export const submittedTokens = (lists: IfList[] | null): string[] =>
  (lists ?? []).flatMap((l) => l.conditions.filter((c) => !c.not && c.token).map((c) => c.token!));

export interface ResourceState {
  /** the lock tokens of the live locks covering it */
  tokens: string[];
  /** its entity tag, quotes included (null: no such resource, or a collection) */
  etag: string | null;
}

/** Does the header hold? `stateOf` says what a list's resource is like (its URL as sent, or null for the request's). */
export async function ifHolds(
  lists: IfList[],
  stateOf: (resource: string | null) => Promise<ResourceState>,
): Promise<boolean> {
  const states = new Map<string | null, Promise<ResourceState>>();
  const state = (resource: string | null) => {
    if (!states.has(resource)) states.set(resource, stateOf(resource));
    return states.get(resource)!;
  };
  const weakless = (tag: string) => tag.replace(/^W\//, '');
  for (const list of lists) {
    let holds = true;
    for (const c of list.conditions) {
      const s = await state(list.resource);
      const met =
        c.token !== undefined ? s.tokens.includes(c.token) : s.etag !== null && weakless(s.etag) === weakless(c.etag!);
      if (met === c.not) {
        holds = false;
        break;
      }
    }
    if (holds) return true;
  }
  return false;
}
