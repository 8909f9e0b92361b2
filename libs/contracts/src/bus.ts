/**
 * What crosses the bus for every service: the service names (each listens in a queue group named
 * after itself), the broadcast that announces appends, and the replies every service gives.
 */
export const SERVICES = ['accounts', 'billing', 'storage-catalog'] as const;
export type ServiceName = (typeof SERVICES)[number];

/** Broadcast (no queue group): tells every interested process that new events were appended. */
export const EVENTS_APPENDED_SUBJECT = 'burrow.events.appended';

/** Every request made for a partner carries its id, set by the gateway from the credentials. */
export interface PartnerScoped {
  partnerId: string;
}

export interface HealthReply {
  service: string;
  ok: boolean;
  position: number;
  /** why not ok (a store unreachable, read models stopped or behind) */
  reason?: string;
  /**
   * ok, but some requests fail: what does not answer and which requests it takes down (the event
   * store: writes answer 503 while reads go on from the read models)
   */
  degraded?: string;
  /** which process answered (`<host>:<pid>`) */
  replica?: string;
}

/**
 * Broadcast (no queue group): every process says how it is, every few seconds (`ReplicaReport`);
 * the gateways list what they hear in /readyz, replica by replica.
 */
export const REPLICA_REPORTS_SUBJECT = 'burrow.replicas.report';

/** One process's heartbeat on `REPLICA_REPORTS_SUBJECT`. */
export interface ReplicaReport extends HealthReply {
  replica: string;
  /** when it was sent (ms since the epoch, the sender's clock) */
  at: number;
  /** how often it sends one (ms): a report older than three of these is stale */
  everyMs: number;
  /** its own health, readiness and metrics over HTTP (BURROW_OPS_PORT), when it serves them */
  ops?: string;
}

/** A write's global position, for read-your-writes across services (`accounts.sync`). */
export interface PositionReply {
  position: number | null;
}
