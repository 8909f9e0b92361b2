export { type BillingOptions, startBilling } from './billing.service.js';
export type { CardAuthorization, CardDetails, CardProcessor } from './card-processor/card-processor.js';
export { CARD_DECLINES, LocalCardProcessor } from './card-processor/local-card-processor.js';
export type { Clock } from '@burrow/runtime';
