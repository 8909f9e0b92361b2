/**
 * Per-replica health (issue 39). A service's readiness asked on its queue group is answered by
 * whichever replica NATS picks, so one stuck replica of two hides behind the other. So every
 * process also says how it is, on its own, every `BURROW_REPLICA_REPORT_MS`: a broadcast (no queue
 * group) of its `ReplicaReport` that every gateway hears and lists in /readyz, per service and
 * replica, with how long ago it last spoke. A replica that stops speaking (stuck, SIGSTOPped,
 * partitioned) shows as `stale`. And with `BURROW_OPS_PORT` each process serves its own
 * /healthz, /readyz and /metrics over HTTP (`OpsServer`), for probes that ask one process.
 */
import { type HealthReply, REPLICA_REPORTS_SUBJECT, type ReplicaReport } from '@burrow/contracts';
import { hostname } from 'node:os';

/** Plain publish/subscribe, every subscriber getting every message (NATS without queue groups, or the in-process bus). */
export interface Broadcasts {
  publish(subject: string, data: object): void;
  subscribe(subject: string, onMessage: (data: unknown) => void): () => void;
}

/** This process, as replica lists name it. */
export const replicaId = (): string => `${hostname()}:${process.pid}`;

/** Sends `health()` as this replica's report now and every `everyMs` (one at a time); returns the stop. */
export function startReplicaReports(
  broadcasts: Broadcasts,
  everyMs: number,
  health: () => Promise<HealthReply>,
  ops?: string,
): () => void {
  const replica = replicaId();
  let sending = false;
  const send = async () => {
    if (sending) return;
    sending = true;
    try {
      const reply = await health();
      const report: ReplicaReport = { ...reply, replica, at: Date.now(), everyMs, ...(ops ? { ops } : {}) };
      broadcasts.publish(REPLICA_REPORTS_SUBJECT, report);
    } catch {
      // a bus that is down: the next report goes when it is back (and its absence is what says so)
    } finally {
      sending = false;
    }
  };
  void send();
  const timer = setInterval(() => void send(), everyMs);
  timer.unref();
  return () => clearInterval(timer);
}

/** One replica as /readyz lists it. */
export interface ReplicaView {
  replica: string;
  ok: boolean;
  reason?: string;
  degraded?: string;
  position: number;
  /** how long ago its last report arrived (ms) */
  last_seen_ms: number;
  /** no report for three of its intervals: stuck, stopped or cut off */
  stale: boolean;
  ops?: string;
}

const MAX_REPLICAS = 1000;
/** a replica silent this long is forgotten (it was stopped for good, or replaced) */
const FORGET_AFTER_MS = 10 * 60_000;

const isReport = (data: unknown): data is ReplicaReport => {
  const r = data as ReplicaReport;
  return (
    typeof r === 'object' &&
    r !== null &&
    typeof r.service === 'string' &&
    typeof r.replica === 'string' &&
    typeof r.ok === 'boolean' &&
    typeof r.everyMs === 'number'
  );
};

/** What a gateway has heard from every replica (bounded; the silent are forgotten after 10 minutes). */
export class ReplicaRegistry {
  private readonly seen = new Map<string, { report: ReplicaReport; receivedAt: number }>();
  private readonly stop: () => void;

  constructor(
    broadcasts: Broadcasts,
    private readonly now: () => number = Date.now,
  ) {
    this.stop = broadcasts.subscribe(REPLICA_REPORTS_SUBJECT, (data) => this.heard(data));
  }

  heard(data: unknown): void {
    if (!isReport(data)) return;
    const key = `${data.service}\0${data.replica}`;
    if (!this.seen.has(key) && this.seen.size >= MAX_REPLICAS) this.forget(0);
    if (!this.seen.has(key) && this.seen.size >= MAX_REPLICAS) return;
    this.seen.set(key, { report: data, receivedAt: this.now() });
  }

  private forget(olderThanMs: number): void {
    const now = this.now();
    for (const [key, { receivedAt, report }] of this.seen) {
      if (now - receivedAt > Math.max(olderThanMs, 3 * report.everyMs)) this.seen.delete(key);
    }
  }

  /** Replicas heard from in the last ten minutes, by service, sorted by name. */
  snapshot(): Record<string, ReplicaView[]> {
    this.forget(FORGET_AFTER_MS);
    const now = this.now();
    const out: Record<string, ReplicaView[]> = {};
    for (const { report, receivedAt } of this.seen.values()) {
      const age = now - receivedAt;
      const view: ReplicaView = {
        replica: report.replica,
        ok: report.ok,
        position: report.position,
        last_seen_ms: age,
        stale: age > 3 * report.everyMs,
        ...(report.reason ? { reason: report.reason } : {}),
        ...(report.degraded ? { degraded: report.degraded } : {}),
        ...(report.ops ? { ops: report.ops } : {}),
      };
      (out[report.service] ??= []).push(view);
    }
    for (const list of Object.values(out)) list.sort((a, b) => a.replica.localeCompare(b.replica));
    return out;
  }

  close(): void {
    this.stop();
  }
}
