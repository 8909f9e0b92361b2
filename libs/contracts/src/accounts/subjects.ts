/**
 * Bus subjects of the accounts service: `accounts.*` goes to the accounts queue group. Operator
 * subjects are called by the admin CLI only (the gateway never routes to them).
 */

/** Called by the admin CLI only; the gateway never routes to them (libs/testing boundaries check). */
export const AccountsOperatorSubjects = {
  createPartner: 'accounts.partners.create',
  findPartner: 'accounts.partners.find',
  setPartnerLimits: 'accounts.partners.set-limits',
  addPlan: 'accounts.plans.add',
  /** lifts a partner login lock for every replica */
  unlockPartnerLogin: 'accounts.partners.unlock-login',
  /** reservations (username-, email-, groupname-, partnername- streams): live, in flight or stuck */
  listReservations: 'accounts.operations.reservations.list',
  releaseReservation: 'accounts.operations.reservations.release',
  /** unfinished multi-step writes, and recovery run now */
  listPendingWrites: 'accounts.operations.writes.pending',
  recoverWrites: 'accounts.operations.writes.recover',
} as const;

export const AccountsSubjects = {
  health: 'accounts.health',
  /** resolves once accounts' read models include the given global position */
  sync: 'accounts.sync',
  authenticatePartner: 'accounts.partners.authenticate',
  /** a user's login name (username or email) and password: storage interface logins and HTTP Basic */
  authenticateUser: 'accounts.users.authenticate',
  /** a storage session's user, still valid (same password) and as they are now */
  sessionUser: 'accounts.users.session',
  /** the storage catalog's share rooms: a new room password's hash, and checking a visitor's password (throttled like logins) */
  hashSharePassword: 'accounts.share-passwords.hash',
  checkSharePassword: 'accounts.share-passwords.check',
  partnerInfo: 'accounts.partners.info',
  changePartnerPassword: 'accounts.partners.change-password',
  getSettings: 'accounts.partners.settings.get',
  updateSettings: 'accounts.partners.settings.update',
  getFeatures: 'accounts.partners.features',
  getQuota: 'accounts.partners.quota',
  listPlans: 'accounts.plans.list',
  listGroups: 'accounts.groups.list',
  createGroup: 'accounts.groups.create',
  getGroup: 'accounts.groups.get',
  updateGroup: 'accounts.groups.update',
  deleteGroup: 'accounts.groups.delete',
  listUsers: 'accounts.users.list',
  countUsers: 'accounts.users.count',
  createUser: 'accounts.users.create',
  getUser: 'accounts.users.get',
  updateUser: 'accounts.users.update',
  deleteUser: 'accounts.users.delete',
  userDevices: 'accounts.users.devices',
  userShares: 'accounts.users.shares',
  userShare: 'accounts.users.share',
  sendActivationEmail: 'accounts.users.send-activation-email',
  /** the set-password page (no partner: the signed link is the credential) */
  checkSetPasswordLink: 'accounts.set-password.check',
  setPasswordByLink: 'accounts.set-password.set',
  brandShares: 'accounts.shares.list',
  storePartnerBackup: 'accounts.partner-backups.store',
  getPartnerBackup: 'accounts.partner-backups.get',
  listPartnerBackups: 'accounts.partner-backups.list',
  listDevicePreferences: 'accounts.device-preferences.list',
  listDevicePolicies: 'accounts.device-policies.list',
  createDevicePolicy: 'accounts.device-policies.create',
  getDevicePolicy: 'accounts.device-policies.get',
  updateDevicePolicy: 'accounts.device-policies.update',
  deleteDevicePolicy: 'accounts.device-policies.delete',
  clientRevisions: 'accounts.client-revisions',
  /** a page of the partner's event feed (waiting a little for the next event when asked) */
  readFeed: 'accounts.feed.read',
  listWebhooks: 'accounts.webhooks.list',
  createWebhook: 'accounts.webhooks.create',
  getWebhook: 'accounts.webhooks.get',
  updateWebhook: 'accounts.webhooks.update',
  deleteWebhook: 'accounts.webhooks.delete',
  rotateWebhookSecret: 'accounts.webhooks.rotate-secret',
  enableWebhook: 'accounts.webhooks.enable',
  disableWebhook: 'accounts.webhooks.disable',
  listWebhookDeliveries: 'accounts.webhooks.deliveries.list',
  getWebhookDelivery: 'accounts.webhooks.deliveries.get',
  redeliverWebhook: 'accounts.webhooks.deliveries.redeliver',
  ...AccountsOperatorSubjects,
} as const;
