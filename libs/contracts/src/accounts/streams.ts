/** Stream names of the accounts service (DESIGN §3). */

/** What a reservation stream makes unique (`<kind>-<key>`). */
export const RESERVATION_KINDS = ['username', 'email', 'groupname', 'partnername'] as const;
export type ReservationKind = (typeof RESERVATION_KINDS)[number];

export const AccountsStreams = {
  planCatalogue: 'plan-catalogue',
  partner: (partnerId: string) => `partner-${partnerId}`,
  group: (groupId: number) => `group-${groupId}`,
  user: (userId: string) => `user-${userId}`,
  /** the partner's storage allocation ledger */
  allocation: (partnerId: string) => `allocation-${partnerId}`,
  /** sequential ids: `counter-group_id`, `counter-avatar_id` */
  counter: (name: string) => `counter-${name}`,
  /** uniqueness reservations: `username-<name>`, `email-<email>`, `groupname-<partner>-<name>` ... */
  reservation: (kind: ReservationKind, key: string) => `${kind}-${key}`,
  /** all device policies of one partner: one aggregate, so inheritance is decided atomically */
  devicePolicies: (partnerId: string) => `devicepolicies-${partnerId}`,
  /** the management appliance's configuration backups of one partner (references to blobs) */
  partnerBackup: (partnerId: string) => `partnerbackup-${partnerId}`,
  /** a webhook endpoint: its settings, secrets, state and redelivery requests */
  webhook: (endpointId: string) => `webhook-${endpointId}`,
  /** the attempts of one webhook delivery */
  webhookDelivery: (deliveryId: string) => `webhookdelivery-${deliveryId}`,
  /** the marker that closes one hour of a device's backup activity (the feed's hourly summary) */
  backupActivity: (deviceId: string, hour: number) => `backupactivity-${deviceId}-${hour}`,
  /** first-start marker */
  bootstrap: 'operator-bootstrap',
} as const;

export const AccountsStreamPrefixes = {
  partner: 'partner-',
  planCatalogue: 'plan-catalogue',
  group: 'group-',
  user: 'user-',
  allocation: 'allocation-',
  devicePolicies: 'devicepolicies-',
  partnerBackup: 'partnerbackup-',
  webhook: 'webhook-',
  webhookDelivery: 'webhookdelivery-',
  backupActivity: 'backupactivity-',
  reservations: ['username-', 'email-', 'groupname-', 'partnername-'],
} as const;
