/** The client's address, as logins (throttling) and session extensions (their bound address) see it. */
import { unmapIPv4 } from '@burrow/runtime';
import type { Request } from 'express';

/** The client's address as the gateway sees it (behind a trusted proxy, the forwarded one), IPv4 unmapped. */
export function clientAddress(req: Request): string {
  return unmapIPv4(req.ip ?? req.socket.remoteAddress ?? '');
}
