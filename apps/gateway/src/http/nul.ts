/**
 * NUL characters never get past the gateway: PostgreSQL (under FerretDB, or as the event store)
 * cannot store them and fails the request with a 500 deep inside, and no name, path or query of
 * Burrow needs one. A URL holding `%00` (its path or its query, decoded once) is refused here with
 * 400 before any route runs; JSON bodies are checked where they are parsed (`json-body.ts`).
 */
import type { NextFunction, Request, Response } from 'express';

/** Express middleware: 400 `{"reason"}` for a URL whose decoded path or query would hold NUL. */
export function refuseNulInUrl(req: Request, res: Response, next: NextFunction): void {
  // a raw NUL cannot reach here (Node's HTTP parser refuses it); decoding `%00` would make one
  if (/%00/i.test(req.url)) {
    res.status(400).json({ reason: 'NUL characters are not allowed in a URL' });
    return;
  }
  next();
}

/** The top-level fields of a JSON body that hold a NUL character somewhere inside. */
export function fieldsHoldingNul(body: unknown): string[] {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) return [];
  return Object.entries(body as Record<string, unknown>)
    .filter(([key, value]) => key.includes('\0') || holdsNul(value))
    .map(([key]) => key);
}

function holdsNul(value: unknown): boolean {
  if (typeof value === 'string') return value.includes('\0');
  if (value === null || typeof value !== 'object') return false;
  return Object.entries(value as Record<string, unknown>).some(([k, v]) => k.includes('\0') || holdsNul(v));
}
