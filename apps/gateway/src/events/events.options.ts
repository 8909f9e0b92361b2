/** What the events module is configured with (BURROW_SSE_*), given to it by the gateway's composition. */
export interface EventsOptions {
  /** an SSE comment goes out at least this often on an idle stream */
  heartbeatMs: number;
  /** an SSE stream ends after this long (the client reconnects with Last-Event-ID) */
  maxStreamMs: number;
}

export const EVENTS_OPTIONS = Symbol('EVENTS_OPTIONS');
