/**
 * Lenient request parsing, per CLIENT-FACTS: numbers may arrive as numeric strings ("3"),
 * booleans as "True"/"false"/"1"/"0"/1/0. Anything else is an invalid field. `parseFields`
 * collects every invalid field so one 400 names them all.
 */
import { badRequest } from './errors.js';

export type FieldKind = 'int' | 'nonNegativeInt' | 'bool' | 'string' | 'nonEmptyString' | 'email' | 'stringList' | 'any';

export interface FieldSpec {
  kind: FieldKind;
  nullable?: boolean;
  required?: boolean;
  maxLength?: number;
}

export const INVALID = Symbol('invalid');

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

export function coerceInt(v: unknown): number | typeof INVALID {
  if (typeof v === 'number' && Number.isSafeInteger(v)) return v;
  if (typeof v === 'string' && /^\s*-?\d{1,16}\s*$/.test(v)) return Number(v.trim());
  return INVALID;
}

export function coerceBool(v: unknown): boolean | typeof INVALID {
  if (typeof v === 'boolean') return v;
  if (v === 1 || v === 0) return v === 1;
  if (typeof v === 'string') {
    const s = v.trim().toLowerCase();
    if (['true', '1', 'yes', 'on'].includes(s)) return true;
    if (['false', '0', 'no', 'off'].includes(s)) return false;
  }
  return INVALID;
}

export function coerceField(value: unknown, spec: FieldSpec): unknown {
  if (value === null) return spec.nullable ? null : INVALID;
  switch (spec.kind) {
    case 'int':
      return coerceInt(value);
    case 'nonNegativeInt': {
      const n = coerceInt(value);
      return n === INVALID || n < 0 ? INVALID : n;
    }
    case 'bool':
      return coerceBool(value);
    case 'string':
    case 'nonEmptyString':
    case 'email': {
      if (typeof value !== 'string') return INVALID;
      const s = value.trim();
      if (spec.kind !== 'string' && s.length === 0) return INVALID;
      if (spec.maxLength !== undefined && s.length > spec.maxLength) return INVALID;
      if (spec.kind === 'email' && !EMAIL.test(s)) return INVALID;
      return s;
    }
    case 'stringList':
      return Array.isArray(value) && value.every((x) => typeof x === 'string') ? value : INVALID;
    case 'any':
      return value;
  }
}

/**
 * Validates a JSON object body against field specs. Unknown keys are rejected when
 * `rejectUnknown` is set (partner settings), ignored otherwise.
 */
export function parseFields<T extends object>(
  body: unknown,
  specs: Record<string, FieldSpec>,
  options: { rejectUnknown?: boolean } = {},
): Partial<T> {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) {
    throw badRequest('request body must be a JSON object');
  }
  const out: Record<string, unknown> = {};
  const invalid: string[] = [];
  for (const [key, value] of Object.entries(body)) {
    // own keys only: "constructor" or "__proto__" in a body must not find Object.prototype members
    const spec = Object.hasOwn(specs, key) ? specs[key] : undefined;
    if (!spec) {
      if (options.rejectUnknown) invalid.push(key);
      continue;
    }
    const coerced = coerceField(value, spec);
    if (coerced === INVALID) invalid.push(key);
    else out[key] = coerced;
  }
  for (const [key, spec] of Object.entries(specs)) {
    if (spec.required && !(key in (body as object))) invalid.push(key);
  }
  if (invalid.length) throw badRequest(`invalid or missing parameters: ${invalid.join(', ')}`, invalid);
  return out as Partial<T>;
}

/** Optional integer query parameter; `undefined` when absent, 400 naming it when malformed. */
export function queryInt(query: Record<string, unknown>, name: string, min = Number.MIN_SAFE_INTEGER): number | undefined {
  const raw = query[name];
  if (raw === undefined || raw === '') return undefined;
  const n = coerceInt(Array.isArray(raw) ? raw[0] : raw);
  if (n === INVALID || n < min) throw badRequest(`invalid query parameter: ${name}`, [name]);
  return n;
}
