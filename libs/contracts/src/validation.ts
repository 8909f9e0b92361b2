/**
 * The one way Burrow validates a request's shape: a zod schema declared once (in the owning
 * service's contracts), parsed where the request enters Burrow (the gateway for HTTP, the operator
 * subjects for the admin CLI) with `parseRequest`, which turns every problem into one 400 naming
 * every invalid, missing or unknown field. Domain rules (uniqueness, quota, state) are not here:
 * they live in the owning service's deciders and handlers.
 *
 * Real clients send form-style values (CLIENT-FACTS): numbers as numeric strings ("3"), booleans
 * as "True"/"false"/"1"/"0"/1/0, JSON under any content type. The `form*` field builders accept
 * those and output the canonical type, so a handler only ever sees numbers and booleans.
 */
import { z } from 'zod';
import { badRequest } from './errors.js';

export { z };

const INT_STRING = /^\s*-?\d{1,16}\s*$/;
const TRUE_WORDS = ['true', '1', 'yes', 'on'];
const FALSE_WORDS = ['false', '0', 'no', 'off'];

export interface IntBounds {
  min?: number;
  max?: number;
}

/** An exact integer, as a JSON number or a numeric string; bounds checked after coercion. */
export function formInt(bounds: IntBounds = {}) {
  let out = z.int();
  if (bounds.min !== undefined) out = out.min(bounds.min);
  if (bounds.max !== undefined) out = out.max(bounds.max);
  return z.union([z.number(), z.string().regex(INT_STRING).transform(Number)]).pipe(out);
}

/** A boolean as JSON true/false, 1/0, or one of "true/false/1/0/yes/no/on/off" (any case). */
export function formBool() {
  return z
    .union([
      z.boolean(),
      z.literal(1).transform(() => true),
      z.literal(0).transform(() => false),
      z
        .string()
        .transform((s) => s.trim().toLowerCase())
        .refine((s) => TRUE_WORDS.includes(s) || FALSE_WORDS.includes(s))
        .transform((s) => TRUE_WORDS.includes(s)),
    ])
    .pipe(z.boolean());
}

/** Trimmed text of at most `max` characters; non-empty unless `allowEmpty`. */
export function text(max: number, options: { allowEmpty?: boolean } = {}) {
  const trimmed = z.string().trim().max(max);
  return options.allowEmpty ? trimmed : trimmed.min(1);
}

/** A simple address shape (something@domain.tld): deliverability is not checked here. */
export const EMAIL_PATTERN = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
export const EMAIL_MAX_LENGTH = 254;
export const emailAddress = () => z.string().trim().max(EMAIL_MAX_LENGTH).regex(EMAIL_PATTERN);

/**
 * Parses `input` with `schema`; a 400 naming every invalid, missing or unknown field otherwise.
 * An object schema refuses a body that is not a JSON object with a 400 that names no field.
 */
export function parseRequest<S extends z.ZodType>(schema: S, input: unknown, options: ParseOptions = {}): z.output<S> {
  if (isObjectSchema(schema) && (input === null || typeof input !== 'object' || Array.isArray(input))) {
    throw badRequest(`${options.what ?? 'request body'} must be a JSON object`);
  }
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  const fields = fieldsOf(result.error, options.field, options.nested);
  throw badRequest(`invalid or missing parameters: ${fields.join(', ')}`, fields);
}

export interface ParseOptions {
  /** what the input is, in the reason of a 400 for a non-object */
  what?: string;
  /** the name of the whole input, when the input is a bare value */
  field?: string;
  /** object fields whose own keys are named in a 400 (`policy.lan_sync`), not the field alone */
  nested?: readonly string[];
}

/**
 * The field names an error is about, in the order zod found them, each once. A problem with the
 * whole input (a body that is a bare value, like the new password) is named `field`; one inside a
 * `nested` object field is named `<field>.<key>`.
 */
export function fieldsOf(error: z.ZodError, field = 'body', nested: readonly string[] = []): string[] {
  const fields: string[] = [];
  for (const issue of error.issues) {
    const top = issue.path.length ? String(issue.path[0]) : field;
    const within = nested.includes(top) && (issue.path.length > 1 || issue.code === 'unrecognized_keys');
    const keys = issue.code === 'unrecognized_keys' ? issue.keys : [within ? String(issue.path[1]) : top];
    const names = within ? keys.map((key) => `${top}.${key}`) : keys;
    for (const name of names) if (!fields.includes(name)) fields.push(name);
  }
  return fields;
}

function isObjectSchema(schema: z.ZodType): boolean {
  let s: unknown = schema;
  // look through pipes and refinements to the object underneath
  for (let i = 0; i < 5 && s; i++) {
    const def = (s as { _zod?: { def?: { type?: string; in?: unknown } } })._zod?.def;
    if (!def) return false;
    if (def.type === 'object') return true;
    if (def.type !== 'pipe') return false;
    s = def.in;
  }
  return false;
}

/**
 * Query strings: the parameters a route knows are declared as a zod object of optional fields.
 * Express's simple parser makes a repeated key an array and keeps bracketed keys (`limit[]`,
 * `plan_id[$ne]`) as they are. Either, for a known name, is a 400 naming it (a client that sends
 * them means something the route cannot do); unknown parameters are ignored (clients add `_`, `cb`).
 */
export function parseQuery<S extends z.ZodObject>(schema: S, query: Record<string, unknown>): z.output<S> {
  const known = Object.keys(schema.shape);
  const malformed: string[] = [];
  const values: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(query)) {
    const base = key.includes('[') ? key.slice(0, key.indexOf('[')) : key;
    if (!known.includes(base)) continue;
    if (base !== key || typeof value !== 'string') {
      if (!malformed.includes(base)) malformed.push(base);
      continue;
    }
    // an empty value (`?limit=`) means the parameter was not given
    if (value !== '') values[key] = value;
  }
  const result = schema.safeParse(values);
  const fields = [
    ...malformed,
    ...(result.success ? [] : fieldsOf(result.error).filter((f) => !malformed.includes(f))),
  ];
  if (fields.length) throw badRequest(`invalid query parameters: ${fields.join(', ')}`, fields);
  return result.data as z.output<S>;
}
