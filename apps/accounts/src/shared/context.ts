/**
 * What every accounts handler needs: the event store, this service's read models, the projection
 * runner (for read-your-writes), a clock and the signing secret. Built once in the composition root.
 */
import type { DocumentStore } from '@burrow/documents';
import type { EventStore } from '@burrow/event-store';
import type { ProjectionRunner } from '@burrow/eventsourcing';
import type { Logger } from '@burrow/runtime';

export interface Clock {
  /** unix seconds */
  now(): number;
}

export const systemClock: Clock = { now: () => Math.floor(Date.now() / 1000) };

export interface AccountsContext {
  store: EventStore;
  docs: DocumentStore;
  runner: ProjectionRunner;
  clock: Clock;
  secret: string;
  log: Logger;
}

export const ACCOUNTS_CONTEXT = Symbol('ACCOUNTS_CONTEXT');
