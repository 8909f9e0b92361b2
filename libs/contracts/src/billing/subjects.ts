/** Bus subjects of the billing service: `billing.*` goes to its queue group. */
export const BillingSubjects = {
  health: 'billing.health',
  getBilling: 'billing.partner.get',
  updateBilling: 'billing.partner.update',
  /** the management appliance's billing API (`/apis/billing/v1/`) */
  applianceBillingInfo: 'billing.appliance.info',
  appliancePayments: 'billing.appliance.payments',
  applianceSubscription: 'billing.appliance.subscription',
  /** operator only (admin CLI) */
  setBillingMode: 'billing.partner.set-mode',
} as const;
