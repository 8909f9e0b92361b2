/**
 * Accounts' writes forget what the gateways remember of logins (issue 38; session-memo.ts in the
 * gateway, `SessionForgets` in libs/runtime). Every gateway replica remembers, briefly, the storage
 * logins and sessions this service confirmed; what the confirmation said depends on a user's
 * stream (password and disable stamp, enabled, username and email, group, deletion), on their
 * group's (the web interface) and on their partner's (sharing, the share-link lifetime).
 *
 * So every bus handler runs with a note of the streams it appends to (`notingAppends`: the view of
 * the event store the handlers and the process log write through), and before its reply goes, a
 * handler that appended to a user's stream has every gateway forget that user, one that appended
 * to a group's or a partner's stream has them forget everything (whose users that touches is not
 * looked up: such writes are rare), and waits for their acknowledgements. It does so after the
 * handler, which has waited for the read models (read-your-writes): a gateway that asks again
 * reads the change. A write that fails after appending forgets too.
 *
 * What recovery finishes outside a request (a write whose process died) is noted the same way
 * (`forgettingAfter`) and forgotten once the read models hold it. A process killed between its
 * append and its forget leaves the gateways remembering what it changed, and its successor cannot
 * tell what that was: a starting service has them forget everything (accounts.service.ts).
 */
import type { SessionForget } from '@burrow/contracts';
import type { EventStore } from '@burrow/event-store';
import type { BusHook } from '@burrow/runtime';
import { AsyncLocalStorage } from 'node:async_hooks';

/** the streams the handler running appended to (those that change what a login check says) */
const appended = new AsyncLocalStorage<Set<string>>();
const CHECKED_STREAMS = /^(user|group|partner)-/;

/** A view of `store` whose appends (and those of its deferred view) are noted for the handler running. */
export function notingAppends(store: EventStore): EventStore {
  return new Proxy(store, {
    get(target, property) {
      if (property === 'append') {
        return (stream: string, ...rest: Parameters<EventStore['append']> extends [string, ...infer R] ? R : never) => {
          if (CHECKED_STREAMS.test(stream)) appended.getStore()?.add(stream);
          return target.append(stream, ...rest);
        };
      }
      if (property === 'deferringDurability' && target.deferringDurability)
        return () => notingAppends(target.deferringDurability!());
      const value: unknown = Reflect.get(target, property, target);
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
}

/** What the gateways forget for these streams. */
export function forgetFor(streams: Iterable<string>): Omit<SessionForget, 'id'> {
  const users: string[] = [];
  for (const stream of streams) {
    if (!stream.startsWith('user-')) return { all: true };
    users.push(stream.slice('user-'.length));
  }
  return { users };
}

/** Tells the gateways, and waits for them (`SessionForgets`). */
export interface GatewayForgets {
  forget(what: Omit<SessionForget, 'id'>): Promise<unknown>;
}

/**
 * Runs `work` outside a request (recovery finishing the writes of processes that died) with its
 * appends noted as a handler's are; if it appended to a user's, group's or partner's stream, waits
 * for the read models (`settled`: a gateway asking again must read the change) and has the
 * gateways forget what those streams decide, whether `work` succeeded or not.
 */
export async function forgettingAfter<T>(
  forgets: GatewayForgets,
  settled: () => Promise<void>,
  work: () => Promise<T>,
): Promise<T> {
  const streams = new Set<string>();
  try {
    return await appended.run(streams, work);
  } finally {
    if (streams.size > 0) {
      // read models that are behind (an outage) still get the forget: the gateways then ask again sooner
      await settled().catch(() => undefined);
      await forgets.forget(forgetFor(streams));
    }
  }
}

export class ForgetSessionsAfterWrites implements BusHook {
  constructor(private readonly forgets: GatewayForgets) {}

  around(_data: unknown, next: () => Promise<unknown>): Promise<unknown> {
    const streams = new Set<string>();
    return appended.run(streams, async () => {
      try {
        return await next();
      } finally {
        if (streams.size > 0) await this.forgets.forget(forgetFor(streams));
      }
    });
  }
}
