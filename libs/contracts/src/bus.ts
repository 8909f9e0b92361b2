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

/**
 * Broadcast (no queue group): forget remembered logins (issue 38). Each gateway replica remembers
 * the storage logins and sessions accounts confirmed, briefly; a write that changes what such a
 * check decides (accounts: a user's password, state, names, their group, their partner's
 * settings; a gateway: a logout) sends a `SessionForget` here and answers only once every gateway
 * replica it knows of has said `SessionForgotten` (or a short wait is over: docs/decisions.md).
 */
export const SESSION_FORGET_SUBJECT = 'burrow.sessions.forget';
/** Broadcast: a gateway replica has forgotten what a `SessionForget` named. */
export const SESSION_FORGOTTEN_SUBJECT = 'burrow.sessions.forgotten';

export interface SessionForget {
  /** the request's id, echoed by the acknowledgements */
  id: string;
  /** every remembered login of these users */
  users?: string[];
  /** every remembered check of these cookie sessions (their `sid`) */
  sessions?: string[];
  /** everything (a group's or a partner's change: whose users it touches is not looked up) */
  all?: boolean;
}

export interface SessionForgotten {
  id: string;
  /** the gateway replica (`replicaId()`: as its replica reports name it) */
  replica: string;
}

/** A write's global position, for read-your-writes across services (`accounts.sync`). */
export interface PositionReply {
  position: number | null;
}
