/** Partner commands: create a partner, set its limits and features, its billing mode, show it. */
import { BILLING_MODES, PARTNER_FEATURES, type PartnerDetails, Subjects } from '@burrow/contracts';
import type { RpcClient } from '@burrow/transport';
import { type AdminCommand, given, optional, type OptionValues, UsageError } from '../command-line.js';

/** `N` bytes or `unlimited` (null); undefined when not given. */
function bytesAvailable(values: OptionValues): number | null | undefined {
  const value = optional(values, 'bytes-available');
  if (value === undefined) return undefined;
  if (value === 'unlimited') return null;
  if (!/^\d+$/.test(value))
    throw new UsageError(`--bytes-available must be a number of bytes or "unlimited" (got "${value}")`);
  return Number(value);
}

/** `ldap,netkes=false,...`: a bare name turns the feature on. */
function features(values: OptionValues): Record<string, boolean> | undefined {
  const value = optional(values, 'features');
  if (value === undefined) return undefined;
  const out: Record<string, boolean> = {};
  for (const item of value.split(',').filter(Boolean)) {
    const [name, flag, ...extra] = item.split('=');
    if (!(PARTNER_FEATURES as readonly string[]).includes(name))
      throw new UsageError(`unknown feature ${name} (known: ${PARTNER_FEATURES.join(', ')})`);
    if (extra.length || (flag !== undefined && flag !== 'true' && flag !== 'false'))
      throw new UsageError(`--features: write ${name}, ${name}=true or ${name}=false (got "${item}")`);
    out[name] = flag !== 'false';
  }
  return out;
}

const setBillingMode = async (rpc: RpcClient, username: string, mode: string) => {
  const partner = await rpc.call<PartnerDetails>(Subjects.accounts.findPartner, { username });
  return rpc.call(Subjects.billing.setBillingMode, { partnerId: partner.partner_id, billing_mode: mode });
};

const FEATURES_HELP = `comma-separated: ${PARTNER_FEATURES.join(', ')}; name=false turns one off`;

export const partnerCommands: AdminCommand[] = [
  {
    name: 'create-partner',
    summary: 'create a partner account (login name, API password, company)',
    options: {
      username: { type: 'string', value: 'U', required: true, description: "the partner's login name" },
      password: { type: 'string', value: 'P', required: true, description: 'the API password (8 characters or more)' },
      company: { type: 'string', value: 'NAME', required: true, description: 'company name' },
      brand: { type: 'string', value: 'ID', description: 'brand identifier (default: the username, lower-cased)' },
      'bytes-available': {
        type: 'string',
        value: 'N|unlimited',
        description: 'storage the partner may allocate (default unlimited)',
      },
      features: { type: 'string', value: 'ldap,netkes,...', description: FEATURES_HELP },
      'billing-mode': {
        type: 'string',
        choices: BILLING_MODES,
        description: "billing mode (default: billing's default)",
      },
    },
    prepare(o) {
      const request = {
        username: given(o, 'username'),
        password: given(o, 'password'),
        company_name: given(o, 'company'),
        brand_identifier: optional(o, 'brand'),
        bytes_available: bytesAvailable(o) ?? null,
        features: features(o),
      };
      const mode = optional(o, 'billing-mode');
      return async (rpc) => {
        const info = await rpc.call(Subjects.accounts.createPartner, request);
        if (mode) await setBillingMode(rpc, request.username, mode);
        return info;
      };
    },
  },
  {
    name: 'set-partner-limits',
    summary: "change a partner's storage limit and features",
    options: {
      username: { type: 'string', value: 'U', required: true, description: 'the partner' },
      'bytes-available': { type: 'string', value: 'N|unlimited', description: 'storage the partner may allocate' },
      features: { type: 'string', value: 'ldap=true,netkes=false,...', description: FEATURES_HELP },
    },
    prepare(o) {
      const request = { username: given(o, 'username'), bytes_available: bytesAvailable(o), features: features(o) };
      return (rpc) => rpc.call(Subjects.accounts.setPartnerLimits, request);
    },
  },
  {
    name: 'set-billing-mode',
    summary: 'set how a partner is billed',
    options: {
      username: { type: 'string', value: 'U', required: true, description: 'the partner' },
      'billing-mode': { type: 'string', choices: BILLING_MODES, required: true, description: 'the new mode' },
    },
    prepare(o) {
      return (rpc) => setBillingMode(rpc, given(o, 'username'), given(o, 'billing-mode'));
    },
  },
  {
    name: 'show-partner',
    summary: "show a partner's id, limits and features",
    options: { username: { type: 'string', value: 'U', required: true, description: 'the partner' } },
    prepare(o) {
      return (rpc) => rpc.call(Subjects.accounts.findPartner, { username: given(o, 'username') });
    },
  },
  {
    name: 'unlock-login',
    summary: 'lift a failed-login lock on a partner username, for every replica (needs NATS_URL)',
    options: { username: { type: 'string', value: 'U', required: true, description: 'the partner' } },
    prepare(o) {
      // Standalone keeps the failed-login counters in the server's own memory: this process cannot reach them.
      if (!process.env.NATS_URL)
        throw new UsageError(
          'unlock-login needs NATS_URL: a standalone server keeps its login counters in memory (restart it to clear them)',
        );
      return (rpc) => rpc.call(Subjects.accounts.unlockPartnerLogin, { username: given(o, 'username') });
    },
  },
];
