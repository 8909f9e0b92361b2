/** HTTP Basic credentials from the Authorization header (RFC 7617; UTF-8). */
import type { Request } from 'express';

export interface BasicCredentials {
  username: string;
  password: string;
}

export function basicCredentials(req: Request): BasicCredentials | null {
  const header = req.headers.authorization;
  if (!header) return null;
  const match = /^Basic\s+([A-Za-z0-9+/=._~-]+)\s*$/i.exec(header);
  if (!match) return null;
  const decoded = Buffer.from(match[1], 'base64').toString('utf8');
  // no account's name or password holds NUL (and PostgreSQL could not look one up): not credentials
  if (decoded.includes('\0')) return null;
  const colon = decoded.indexOf(':');
  if (colon < 0) return null;
  return { username: decoded.slice(0, colon), password: decoded.slice(colon + 1) };
}
