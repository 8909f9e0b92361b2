/**
 * Message subjects on the bus. A subject names the owning service first: the gateway sends
 * `accounts.*` to the accounts queue group, and so on. Only these strings cross the bus.
 */
export const SERVICES = ['accounts', 'billing', 'storage-catalog'] as const;
export type ServiceName = (typeof SERVICES)[number];

export const Subjects = {
  accounts: {
    health: 'accounts.health',
    authenticatePartner: 'accounts.partners.authenticate',
    createPartner: 'accounts.partners.create',
    partnerInfo: 'accounts.partners.info',
    /** operator only: a partner's info by its username */
    findPartner: 'accounts.partners.find',
    changePartnerPassword: 'accounts.partners.change-password',
    getSettings: 'accounts.partners.settings.get',
    updateSettings: 'accounts.partners.settings.update',
    getFeatures: 'accounts.partners.features',
    setPartnerLimits: 'accounts.partners.set-limits',
    getQuota: 'accounts.partners.quota',
    listPlans: 'accounts.plans.list',
    addPlan: 'accounts.plans.add',
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
    brandShares: 'accounts.shares.list',
    clientRevisions: 'accounts.client-revisions',
    /** resolves once accounts' read models include the given global position */
    sync: 'accounts.sync',
  },
  billing: {
    health: 'billing.health',
    getBilling: 'billing.partner.get',
    updateBilling: 'billing.partner.update',
    setBillingMode: 'billing.partner.set-mode',
  },
  storage: {
    health: 'storage-catalog.health',
    setShareEnabled: 'storage-catalog.shares.set-enabled',
  },
} as const;

/** Broadcast (no queue group): tells every interested process that new events were appended. */
export const EVENTS_APPENDED_SUBJECT = 'burrow.events.appended';
