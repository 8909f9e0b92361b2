/**
 * HTML form bodies (`application/x-www-form-urlencoded`, what a browser posts), read as a stream
 * with a small cap (413 past it). A repeated field keeps its first value.
 */
import { badRequest } from '@burrow/contracts';
import type { Request } from 'express';
import { readBoundedBody } from './json-body.js';
import { fieldsHoldingNul } from './nul.js';

/** A form of a few fields; a password is at most 1024 characters, percent-encoded up to 3 bytes each. */
export const FORM_BODY_LIMIT = 16 * 1024;

export async function readFormBody(req: Request, limit = FORM_BODY_LIMIT): Promise<Record<string, string>> {
  const fields: Record<string, string> = {};
  for (const [key, value] of new URLSearchParams((await readBoundedBody(req, limit)).toString('utf8')))
    if (!(key in fields)) fields[key] = value;
  const withNul = fieldsHoldingNul(fields);
  if (withNul.length) throw badRequest('NUL characters are not allowed', withNul);
  return fields;
}
