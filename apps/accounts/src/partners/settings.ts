/**
 * Enterprise settings: defaults and validation. Every bad field is named in one 400; unknown keys
 * are rejected so a typo is not silently ignored.
 */
import { badRequest, coerceBool, coerceInt, INVALID, type PartnerSettings } from '@burrow/contracts';
import { isIP } from 'node:net';

export const DEFAULT_SETTINGS: PartnerSettings = {
  omva_url: null,
  support_email: null,
  share_link_ttl: 10080,
  autopurge_interval: 0,
  purgehold_duration: 0,
  ad_domain: null,
  signup_network_restriction: [],
  versionpurge_interval: null,
  admin_email: null,
  sharing_enabled: true,
  api_version: null,
};

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
const DOMAIN = /^(?=.{1,253}$)([a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)(\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)*$/i;
const MAX_INT = 2_147_483_647;

export function isCidr(value: string): boolean {
  const [addr, bits, ...rest] = value.split('/');
  if (rest.length || bits === undefined || !/^\d{1,3}$/.test(bits)) return false;
  const family = isIP(addr);
  if (family === 0) return false;
  return Number(bits) <= (family === 4 ? 32 : 128);
}

function url(v: unknown): string | null | typeof INVALID {
  if (v === null || v === '') return null;
  if (typeof v !== 'string') return INVALID;
  try {
    const u = new URL(v);
    return u.protocol === 'http:' || u.protocol === 'https:' ? v : INVALID;
  } catch {
    return INVALID;
  }
}

const email = (v: unknown) => (v === null || v === '' ? null : typeof v === 'string' && EMAIL.test(v.trim()) ? v.trim() : INVALID);
const nonNegative = (nullable: boolean) => (v: unknown) => {
  if (v === null || v === '') return nullable ? null : INVALID;
  const n = coerceInt(v);
  return n === INVALID || n < 0 || n > MAX_INT ? INVALID : n;
};

const validators: { [K in keyof PartnerSettings]: (v: unknown) => unknown } = {
  omva_url: url,
  support_email: email,
  share_link_ttl: (v) => {
    const n = nonNegative(false)(v);
    return n === 0 ? INVALID : n;
  },
  autopurge_interval: nonNegative(true),
  purgehold_duration: nonNegative(false),
  ad_domain: (v) => (v === null || v === '' ? null : typeof v === 'string' && DOMAIN.test(v.trim()) ? v.trim().toLowerCase() : INVALID),
  signup_network_restriction: (v) => {
    if (v === null) return [];
    return Array.isArray(v) && v.every((x) => typeof x === 'string' && isCidr(x.trim())) ? v.map((x: string) => x.trim()) : INVALID;
  },
  versionpurge_interval: nonNegative(true),
  admin_email: email,
  sharing_enabled: (v) => coerceBool(v),
  api_version: (v) => (v === null ? null : typeof v === 'string' && v.length <= 32 ? v : INVALID),
};

export function validateSettings(body: unknown): Partial<PartnerSettings> {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) throw badRequest('settings must be a JSON object');
  const out: Record<string, unknown> = {};
  const invalid: string[] = [];
  for (const [key, value] of Object.entries(body)) {
    // own keys only: `constructor`, `__proto__`, `toString`... are unknown settings, not validators
    const validate = Object.hasOwn(validators, key) ? validators[key as keyof PartnerSettings] : undefined;
    const result = validate ? validate(value) : INVALID;
    if (result === INVALID) invalid.push(key);
    else out[key] = result;
  }
  if (invalid.length) throw badRequest(`invalid settings: ${invalid.join(', ')}`, invalid);
  return out as Partial<PartnerSettings>;
}
