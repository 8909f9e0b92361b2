/**
 * What every billing handler needs, built once in the composition root: the event store, this
 * service's read models, the projection runner (read-your-writes), the card processor, a clock
 * (injectable so tests can fix "now" for card expiry) and a logger.
 */
import type { DocumentStore } from '@burrow/documents';
import type { EventStore } from '@burrow/event-store';
import type { ProjectionRunner } from '@burrow/eventsourcing';
import type { Clock, Logger } from '@burrow/runtime';
import type { CardProcessor } from './card-processor/card-processor.js';

export interface BillingContext {
  store: EventStore;
  docs: DocumentStore;
  runner: ProjectionRunner;
  processor: CardProcessor;
  clock: Clock;
  log: Logger;
}

export const BILLING_CONTEXT = Symbol('BILLING_CONTEXT');
