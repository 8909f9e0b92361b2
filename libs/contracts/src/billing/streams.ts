/** Stream names of the billing service. */
export const BillingStreams = {
  billing: (partnerId: string) => `billing-${partnerId}`,
} as const;

export const BillingStreamPrefixes = {
  billing: 'billing-',
} as const;
