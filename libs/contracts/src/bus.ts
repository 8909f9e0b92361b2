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
}

/** A write's global position, for read-your-writes across services (`accounts.sync`). */
export interface PositionReply {
  position: number | null;
}
