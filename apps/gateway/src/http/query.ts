/** Reading a raw query value where no schema applies (a flag or a token beside the route's own query). */
import type { Request } from 'express';

/** A single query value (the first when repeated), or undefined. */
export function queryValue(req: Request, name: string): string | undefined {
  const value = (req.query as Record<string, unknown>)[name];
  if (typeof value === 'string') return value;
  if (Array.isArray(value) && typeof value[0] === 'string') return value[0];
  return undefined;
}
