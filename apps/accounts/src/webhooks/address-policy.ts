/**
 * Where webhooks may go: no server-side request forgery into the operator's network. Only public
 * unicast addresses are allowed (ipaddr.js classifies them: loopback, private, link-local (cloud
 * metadata at 169.254.169.254), carrier-grade NAT, unique-local, multicast, reserved and the
 * IPv6 forms that embed an IPv4 address are all refused), unless the operator allows private
 * targets (BURROW_WEBHOOK_ALLOW_PRIVATE_ADDRESSES).
 *
 * The check is made on the address a connection actually goes to: `guardedLookup` is the DNS
 * lookup of the delivery's sockets, so a name that resolved to a public address at registration
 * and to 127.0.0.1 at delivery (DNS rebinding) is refused at connect time, and the socket connects
 * to exactly the address that was checked. Literal IP hosts never reach a lookup and are checked
 * by `literalHostRefusal` before the request.
 */
import ipaddr from 'ipaddr.js';
import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { isIP, type LookupFunction } from 'node:net';

/** Resolves a host name to every address it has (injectable: tests simulate DNS). */
export type Resolver = (hostname: string) => Promise<LookupAddress[]>;

export const systemResolver: Resolver = (hostname) =>
  new Promise((resolve, reject) => dnsLookup(hostname, { all: true, verbatim: true }, (error, addresses) => (error ? reject(error) : resolve(addresses))));

/** Why this address may not be a webhook target, or null when it may. */
export function addressRefusal(address: string, allowPrivate: boolean): string | null {
  if (allowPrivate) return null;
  let range: string;
  try {
    // process(): an IPv4-mapped IPv6 address (::ffff:127.0.0.1) is judged as the IPv4 address it is
    range = ipaddr.process(address).range();
  } catch {
    return `${address} is not an IP address`;
  }
  return range === 'unicast' ? null : `${address} is a ${range} address (not allowed for webhooks)`;
}

/** `[::1]` -> `::1`: the host of a URL as an address, when it is one. */
const bareHost = (hostname: string) => (hostname.startsWith('[') && hostname.endsWith(']') ? hostname.slice(1, -1) : hostname);

/** For a URL whose host is an IP literal: why it is refused (null: allowed, or not a literal). */
export function literalHostRefusal(hostname: string, allowPrivate: boolean): string | null {
  const host = bareHost(hostname);
  return isIP(host) ? addressRefusal(host, allowPrivate) : null;
}

export class RefusedAddressError extends Error {
  readonly code = 'EWEBHOOKADDRESS';
  constructor(message: string) {
    super(message);
    this.name = 'RefusedAddressError';
  }
}

/** Resolves, refuses the name if any of its addresses is refused, and hands the socket the checked addresses. */
export async function allowedAddresses(hostname: string, allowPrivate: boolean, resolve: Resolver): Promise<LookupAddress[]> {
  const host = bareHost(hostname);
  const addresses = isIP(host) ? [{ address: host, family: isIP(host) }] : await resolve(host);
  if (addresses.length === 0) throw new RefusedAddressError(`${host} has no address`);
  for (const { address } of addresses) {
    const refusal = addressRefusal(address, allowPrivate);
    if (refusal) throw new RefusedAddressError(`${host} resolves to ${refusal}`);
  }
  return addresses;
}

/** A `lookup` for net/tls sockets that only ever yields allowed addresses. */
export function guardedLookup(allowPrivate: boolean, resolve: Resolver = systemResolver): LookupFunction {
  return (hostname, options, callback) => {
    allowedAddresses(hostname, allowPrivate, resolve).then(
      (addresses) => {
        const family = typeof options === 'object' ? options.family : undefined;
        const wanted = family === 4 || family === 6 ? addresses.filter((a) => a.family === family) : addresses;
        if (wanted.length === 0) return callback(new RefusedAddressError(`${hostname} has no IPv${family} address`), '', 0);
        if (typeof options === 'object' && options.all) return (callback as unknown as (e: null, a: LookupAddress[]) => void)(null, wanted);
        callback(null, wanted[0].address, wanted[0].family);
      },
      (error: NodeJS.ErrnoException) => callback(error, '', 0),
    );
  };
}
