/**
 * What one process knows about its bus connections: whether they are up, since when, and whether
 * the ones that are down are still trying. The gateway's /healthz reports it; the NATS watcher
 * (nats.ts) feeds it. A process on the in-process bus has no connections and is always connected.
 */

export interface BusConnectionState {
  connected: boolean;
  /** when this connection last went up or down (ms since the epoch) */
  since: number;
  /** the latest reconnect attempt while down */
  lastAttempt?: number;
  /** closed for good: it will never reconnect */
  closed?: boolean;
}

export interface BusStatusSnapshot {
  /** every bus connection of this process is up */
  connected: boolean;
  /** when `connected` last changed (process start if it never did), ms since the epoch */
  since: number;
  /**
   * false when a connection is closed for good, or is down and has made no reconnect attempt for
   * `stallMs`: the process cannot heal itself and should be restarted.
   */
  live: boolean;
  connections: Record<string, BusConnectionState>;
}

/** Longer than the slowest reconnect attempt (20 s connection timeout + the wait between tries). */
export const BUS_STALL_MS = 60_000;

export class BusStatus {
  private readonly connections = new Map<string, BusConnectionState>();
  private since: number;

  constructor(
    private readonly now: () => number = Date.now,
    private readonly stallMs = BUS_STALL_MS,
  ) {
    this.since = now();
  }

  private get allConnected(): boolean {
    return [...this.connections.values()].every((c) => c.connected);
  }

  private update(
    name: string,
    change: (state: BusConnectionState | undefined, now: number) => BusConnectionState,
  ): void {
    const before = this.allConnected;
    const now = this.now();
    this.connections.set(name, change(this.connections.get(name), now));
    if (this.allConnected !== before) this.since = now;
  }

  up(name: string): void {
    this.update(name, (_s, now) => ({ connected: true, since: now }));
  }

  down(name: string): void {
    this.update(name, (s, now) => (s && !s.connected ? s : { connected: false, since: now, lastAttempt: now }));
  }

  attempt(name: string): void {
    this.update(name, (s, now) =>
      s && !s.connected ? { ...s, lastAttempt: now } : (s ?? { connected: false, since: now, lastAttempt: now }),
    );
  }

  closed(name: string): void {
    this.update(name, (s, now) => ({ connected: false, since: s && !s.connected ? s.since : now, closed: true }));
  }

  /** A connection closed on purpose (shutdown) no longer counts. */
  remove(name: string): void {
    const before = this.allConnected;
    this.connections.delete(name);
    if (this.allConnected !== before) this.since = this.now();
  }

  snapshot(): BusStatusSnapshot {
    const now = this.now();
    const connections = Object.fromEntries([...this.connections].map(([name, s]) => [name, { ...s }]));
    const live = [...this.connections.values()].every(
      (c) => c.connected || (!c.closed && now - (c.lastAttempt ?? c.since) < this.stallMs),
    );
    return { connected: this.allConnected, since: this.since, live, connections };
  }
}
