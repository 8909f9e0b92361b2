/** How webhooks are delivered (BURROW_WEBHOOK_*): what every webhook handler and the delivery worker read from the context. */
import type { Resolver } from './address-policy.js';
import type { RetryPolicy } from './backoff.js';

export interface WebhookSettings {
  /** http:// URLs allowed (an operator setting, for tests and closed networks) */
  allowHttp: boolean;
  /** loopback, private and link-local targets allowed (an operator setting) */
  allowPrivate: boolean;
  retry: RetryPolicy;
  /** an endpoint whose deliveries have failed (no success) for this long is disabled */
  disableAfterMs: number;
  timeoutMs: number;
  /** deliveries in flight at once, per process */
  concurrency: number;
  /** of which for one partner's endpoints, at most (delivery-slots.ts) */
  perPartner: number;
  /** of which for one endpoint, at most */
  perEndpoint: number;
  /** DNS for URL checks and connections (tests simulate it); default the system's */
  resolver?: Resolver;
}
