/**
 * HTML form bodies (`application/x-www-form-urlencoded`, what a browser posts), read as a stream
 * with a small cap (413 past it). A repeated field keeps its first value.
 */
import { payloadTooLarge } from '@burrow/contracts';
import type { Request } from 'express';

/** A form of a few fields; a password is at most 1024 characters, percent-encoded up to 3 bytes each. */
export const FORM_BODY_LIMIT = 16 * 1024;

export async function readFormBody(req: Request, limit = FORM_BODY_LIMIT): Promise<Record<string, string>> {
  if (Number(req.headers['content-length'] ?? 0) > limit) throw payloadTooLarge(`request body over ${limit} bytes`);
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > limit) {
      req.resume();
      throw payloadTooLarge(`request body over ${limit} bytes`);
    }
    chunks.push(chunk);
  }
  const fields: Record<string, string> = {};
  for (const [key, value] of new URLSearchParams(Buffer.concat(chunks).toString('utf8'))) if (!(key in fields)) fields[key] = value;
  return fields;
}
