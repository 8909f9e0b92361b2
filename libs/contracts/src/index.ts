/**
 * What services share, and nothing else: the error shape, the validation rule, the event and
 * decider vocabulary, the bus basics, the failed-login limits, and per service (accounts/, billing/, storage/) its
 * subjects, streams, records, requests and events.
 */
import { AccountsStreamPrefixes, AccountsStreams, AccountsSubjects } from './accounts/index.js';
import { BillingStreamPrefixes, BillingStreams, BillingSubjects } from './billing/index.js';
import { StorageStreamPrefixes, StorageStreams, StorageSubjects } from './storage/index.js';

export * from './errors.js';
export * from './dependencies.js';
export * from './event.js';
export * from './bus.js';
export * from './json-text.js';
export * from './validation.js';
export * from './login-limits.js';
export * from './b32.js';
export * from './accounts/index.js';
export * from './billing/index.js';
export * from './storage/index.js';

/** Every subject, by owning service. */
export const Subjects = { accounts: AccountsSubjects, billing: BillingSubjects, storage: StorageSubjects } as const;

/** Every stream name, whichever service owns it. */
export const Streams = { ...AccountsStreams, ...BillingStreams, ...StorageStreams } as const;

export const StreamPrefixes = {
  partner: AccountsStreamPrefixes.partner,
  planCatalogue: AccountsStreamPrefixes.planCatalogue,
  group: AccountsStreamPrefixes.group,
  user: AccountsStreamPrefixes.user,
  allocation: AccountsStreamPrefixes.allocation,
  devicePolicies: AccountsStreamPrefixes.devicePolicies,
  partnerBackup: AccountsStreamPrefixes.partnerBackup,
  webhook: AccountsStreamPrefixes.webhook,
  webhookDelivery: AccountsStreamPrefixes.webhookDelivery,
  backupActivity: AccountsStreamPrefixes.backupActivity,
  billing: BillingStreamPrefixes.billing,
  device: StorageStreamPrefixes.device,
  file: StorageStreamPrefixes.file,
  usage: StorageStreamPrefixes.usage,
  share: StorageStreamPrefixes.share,
  preview: StorageStreamPrefixes.preview,
} as const;
