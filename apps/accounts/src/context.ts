/**
 * What every accounts handler needs: the event store, this service's read models, the projection
 * runner (for read-your-writes), the log of multi-step writes, a clock, the signing secret, the
 * failed-login throttle (its counters shared by every replica), the mailer with what
 * set-password links need, the feed's wake-ups and the webhook settings. Built once in the composition root (accounts.service.ts).
 */
import type { DocumentStore } from '@burrow/documents';
import type { EventStore } from '@burrow/event-store';
import type { ProcessLog, ProjectionRunner } from '@burrow/eventsourcing';
import type { Mailer } from '@burrow/mailer';
import type { Clock, Logger } from '@burrow/runtime';
import type { FeedSignals } from './feed/feed-signals.js';
import type { LoginThrottle } from './logins/login-throttle.js';
import type { ActivationMailLimit } from './users/activation-limit.js';
import type { WebhookSettings } from './webhooks/webhook-settings.js';

export interface AccountsContext {
  store: EventStore;
  docs: DocumentStore;
  runner: ProjectionRunner;
  processes: ProcessLog;
  clock: Clock;
  secret: string;
  log: Logger;
  logins: LoginThrottle;
  mailer: Mailer;
  setPasswordLinks: {
    /** BURROW_PUBLIC_URL: the links' base; else the origin the partner's request came to */
    publicUrl?: string;
    /** how long a link stays usable (seconds) */
    ttlSeconds: number;
    /** how many activation emails may be sent per user and per partner */
    limit: ActivationMailLimit;
  };
  /** wake-ups from the feed's projections (long-polling feed reads, the webhook worker) */
  signals: FeedSignals;
  webhooks: WebhookSettings;
}

export const ACCOUNTS_CONTEXT = Symbol('ACCOUNTS_CONTEXT');
