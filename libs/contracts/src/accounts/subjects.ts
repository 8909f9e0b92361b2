/**
 * Bus subjects of the accounts service: `accounts.*` goes to the accounts queue group. Operator
 * subjects are called by the admin CLI only (the gateway never routes to them).
 */
export const AccountsSubjects = {
  health: 'accounts.health',
  /** resolves once accounts' read models include the given global position */
  sync: 'accounts.sync',
  authenticatePartner: 'accounts.partners.authenticate',
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
  brandShares: 'accounts.shares.list',
  clientRevisions: 'accounts.client-revisions',
  // operator only
  createPartner: 'accounts.partners.create',
  findPartner: 'accounts.partners.find',
  setPartnerLimits: 'accounts.partners.set-limits',
  unlockPartnerLogin: 'accounts.partners.unlock-login',
  addPlan: 'accounts.plans.add',
} as const;
