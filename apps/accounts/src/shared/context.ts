/**
 * What every accounts handler needs: the event store, this service's read models, the projection
 * runner (for read-your-writes), the log of multi-step writes, a clock, the signing secret and the
 * failed-login throttle (its counters shared by every replica). Built once in the composition root
 * (accounts.service.ts).
 */
import type { DocumentStore } from '@burrow/documents';
import type { EventStore } from '@burrow/event-store';
import type { ProcessLog, ProjectionRunner } from '@burrow/eventsourcing';
import type { Clock, Logger, LoginThrottle } from '@burrow/runtime';

export interface AccountsContext {
  store: EventStore;
  docs: DocumentStore;
  runner: ProjectionRunner;
  processes: ProcessLog;
  clock: Clock;
  secret: string;
  log: Logger;
  logins: LoginThrottle;
}

export const ACCOUNTS_CONTEXT = Symbol('ACCOUNTS_CONTEXT');
