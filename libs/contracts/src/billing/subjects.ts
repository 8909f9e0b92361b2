/** Bus subjects of the billing service: `billing.*` goes to its queue group. */
export const BillingSubjects = {
  health: 'billing.health',
  getBilling: 'billing.partner.get',
  updateBilling: 'billing.partner.update',
  /** operator only (admin CLI) */
  setBillingMode: 'billing.partner.set-mode',
} as const;
