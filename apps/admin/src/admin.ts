/**
 * The operator's commands (`npm run admin -- <command> [options]`). The spec gives partners no way
 * to create partners or plans, so operators do it here. `runAdmin` parses one command line and
 * sends it over the bus; main.ts decides which bus that is.
 */
import { Subjects } from '@burrow/contracts';
import type { RpcClient } from '@burrow/transport';
import { parseArgs } from 'node:util';

const USAGE = `usage: npm run admin -- <command> [options]

commands:
  create-partner --username U --password P --company NAME [--brand ID]
                 [--bytes-available N|unlimited] [--features ldap,netkes,...] [--billing-mode prepaid|invoice]
  set-partner-limits --username U [--bytes-available N|unlimited] [--features ldap=true,netkes=false,...]
  set-billing-mode --username U --billing-mode prepaid|invoice
  show-partner --username U
  unlock-login --username U      lift a failed-login lock on a partner username (needs NATS_URL:
                                 standalone keeps the counters in the server's memory; restart it)
  add-plan --name NAME --storage-bytes N [--promo]
  list-plans
`;

const FEATURES = ['netkes', 'ldap', 'group_permissions', 'signup_restrictions', 'email_as_username'];

function bytesAvailable(value: string | undefined): number | null | undefined {
  if (value === undefined) return undefined;
  if (value === 'unlimited') return null;
  if (!/^\d+$/.test(value)) throw new Error('--bytes-available must be a number of bytes or "unlimited"');
  return Number(value);
}

function features(value: string | undefined): Record<string, boolean> | undefined {
  if (value === undefined) return undefined;
  const out: Record<string, boolean> = {};
  for (const item of value.split(',').filter(Boolean)) {
    const [name, flag] = item.split('=');
    if (!FEATURES.includes(name)) throw new Error(`unknown feature ${name} (known: ${FEATURES.join(', ')})`);
    out[name] = flag === undefined ? true : flag === 'true';
  }
  return out;
}

export async function runAdmin(argv: string[], rpc: RpcClient): Promise<unknown> {
  const [command, ...rest] = argv;
  const { values: o } = parseArgs({
    args: rest,
    options: {
      username: { type: 'string' }, password: { type: 'string' }, company: { type: 'string' }, brand: { type: 'string' },
      'bytes-available': { type: 'string' }, features: { type: 'string' }, 'billing-mode': { type: 'string' },
      name: { type: 'string' }, 'storage-bytes': { type: 'string' }, promo: { type: 'boolean' },
    },
  });
  const need = (key: keyof typeof o) => {
    const v = o[key];
    if (v === undefined || v === '') throw new Error(`--${key} is required for ${command}`);
    return v as string;
  };
  const setMode = async (username: string, mode: string) => {
    const partner = await rpc.call<{ partner_id: string }>(Subjects.accounts.findPartner, { username });
    return rpc.call(Subjects.billing.setBillingMode, { partnerId: partner.partner_id, billing_mode: mode });
  };
  switch (command) {
    case 'create-partner': {
      const info = await rpc.call(Subjects.accounts.createPartner, {
        username: need('username'), password: need('password'), company_name: need('company'), brand_identifier: o.brand,
        bytes_available: bytesAvailable(o['bytes-available']) ?? null, features: features(o.features),
      });
      if (o['billing-mode']) await setMode(need('username'), o['billing-mode']);
      return info;
    }
    case 'set-partner-limits':
      return rpc.call(Subjects.accounts.setPartnerLimits, { username: need('username'), bytes_available: bytesAvailable(o['bytes-available']), features: features(o.features) });
    case 'set-billing-mode':
      return setMode(need('username'), need('billing-mode'));
    case 'show-partner':
      return rpc.call(Subjects.accounts.findPartner, { username: need('username') });
    case 'unlock-login':
      return rpc.call(Subjects.accounts.unlockPartnerLogin, { username: need('username') });
    case 'add-plan': {
      const bytes = need('storage-bytes');
      if (!/^\d+$/.test(bytes)) throw new Error('--storage-bytes must be a whole number');
      return rpc.call(Subjects.accounts.addPlan, { name: need('name'), storage_bytes: Number(bytes), promo: o.promo === true });
    }
    case 'list-plans':
      return rpc.call(Subjects.accounts.listPlans);
    default:
      throw new Error(command ? `unknown command ${command}\n\n${USAGE}` : USAGE);
  }
}
