/** The client's address, as logins (throttling) and session extensions (their bound address) see it. */
import { unmapIPv4 } from '@burrow/runtime';
import type { Request } from 'express';

/** The client's address as the gateway sees it (behind a trusted proxy, the forwarded one), IPv4 unmapped. */
export function clientAddress(req: Request): string {
  // asked several times per request (limits, logins, session extensions): worked out once
  const known = (req as AddressedRequest)[ADDRESS];
  if (known !== undefined) return known;
  const address = unmapIPv4(req.ip ?? req.socket.remoteAddress ?? '');
  (req as AddressedRequest)[ADDRESS] = address;
  return address;
}

const ADDRESS = Symbol('client address');
type AddressedRequest = Request & { [ADDRESS]?: string };
