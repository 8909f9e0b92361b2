/**
 * Forgetting remembered logins on every gateway replica before a write answers (issue 38). Each
 * gateway replica remembers, briefly, the storage logins and cookie sessions accounts confirmed
 * (apps/gateway storage-access/session-memo.ts), so a download costs one bus round trip (the
 * catalog's), not two. A write that changes what such a check decides sends a `SessionForget`
 * (a broadcast every gateway hears) and waits until every gateway replica it knows of (from their
 * replica reports: those not stale) has acknowledged it, or `waitMs` has passed: a replica that
 * does not answer in time (partitioned, stopped) is cut off from the bus, so it can neither
 * confirm a new login nor be told; what it remembers ends within its memory's lifetime
 * (`SESSION_MEMO_TTL_MS`), the staleness bound docs/decisions.md states.
 */
import {
  SESSION_FORGET_SUBJECT,
  SESSION_FORGOTTEN_SUBJECT,
  type SessionForget,
  type SessionForgotten,
} from '@burrow/contracts';
import { randomUUID } from 'node:crypto';
import type { Broadcasts, ReplicaRegistry } from './replicas.js';

/** How long a write waits for the gateways' acknowledgements at most. */
export const SESSION_FORGET_WAIT_MS = 2000;

/** How long a gateway remembers a confirmed login or session at most: the bound on a cut-off replica's staleness. */
export const SESSION_MEMO_TTL_MS = 30_000;

export class SessionForgets {
  private readonly waiting = new Map<string, { missing: Set<string>; done: () => void }>();
  private readonly stop: () => void;

  constructor(
    private readonly broadcasts: Broadcasts,
    private readonly replicas: Pick<ReplicaRegistry, 'snapshot'>,
    private readonly waitMs = SESSION_FORGET_WAIT_MS,
  ) {
    this.stop = broadcasts.subscribe(SESSION_FORGOTTEN_SUBJECT, (data) => this.heard(data as SessionForgotten));
  }

  private heard(ack: SessionForgotten): void {
    if (typeof ack !== 'object' || ack === null || typeof ack.id !== 'string' || typeof ack.replica !== 'string')
      return;
    const wait = this.waiting.get(ack.id);
    if (!wait) return;
    wait.missing.delete(ack.replica);
    if (wait.missing.size === 0) wait.done();
  }

  /**
   * Tells every gateway replica to forget `what`; resolves once every one that is not stale has
   * acknowledged it, or after `waitMs`, with the replicas that did not answer (none: all did).
   */
  async forget(what: Omit<SessionForget, 'id'>): Promise<string[]> {
    const id = randomUUID();
    const missing = new Set((this.replicas.snapshot().gateway ?? []).filter((r) => !r.stale).map((r) => r.replica));
    let timer: NodeJS.Timeout | undefined;
    const answered = new Promise<void>((resolve) => {
      // registered before the message goes: an in-process bus may deliver (and be answered) at once
      this.waiting.set(id, { missing, done: resolve });
      timer = setTimeout(resolve, this.waitMs);
    });
    try {
      this.broadcasts.publish(SESSION_FORGET_SUBJECT, { id, ...what } satisfies SessionForget);
      if (missing.size > 0) await answered;
    } catch {
      // the bus is down: no gateway can be told, and none can confirm a login either (their memories end by themselves)
    } finally {
      clearTimeout(timer);
      this.waiting.delete(id);
    }
    return [...missing];
  }

  close(): void {
    this.stop();
  }
}
