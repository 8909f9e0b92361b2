/**
 * Where webhooks may go: no server-side request forgery into the operator's network. Only public
 * unicast addresses are allowed (ipaddr.js classifies them: loopback, private, link-local (cloud
 * metadata at 169.254.169.254), carrier-grade NAT, unique-local, multicast, reserved and the
 * IPv6 forms that carry an IPv4 address (IPv4-compatible `::127.0.0.1`, NAT64, 6to4, Teredo) are
 * all refused; an IPv4-mapped one is judged as its IPv4 address), unless the operator allows private
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
  new Promise((resolve, reject) =>
    dnsLookup(hostname, { all: true, verbatim: true }, (error, addresses) =>
      error ? reject(error) : resolve(addresses),
    ),
  );

/** `::/96`: IPv4-compatible IPv6 (deprecated by RFC 4291), which ipaddr.js calls plain unicast. */
const IPV4_COMPATIBLE = ipaddr.parseCIDR('::/96') as [ipaddr.IPv6, number];

const v4 = (high: number, low: number) =>
  ipaddr.fromByteArray([high >> 8, high & 0xff, low >> 8, low & 0xff]).toString();

/**
 * The IPv4 address an IPv6 transition form carries, and the form's name, for the refusal's
 * reason: IPv4-compatible (`::a.b.c.d`), IPv4-translated (`::ffff:0:a.b.c.d`), NAT64 (RFC 6052,
 * `64:ff9b::a.b.c.d`), 6to4 (`2002:AABB:CCDD::`) and Teredo (the client's address, inverted, in
 * the last 32 bits). Null for any other address.
 */
function carriedIPv4(address: ipaddr.IPv6, range: string): { form: string; ipv4: string } | null {
  const p = address.parts;
  switch (range) {
    case 'ipv4Compatible':
      return { form: 'an IPv4-compatible IPv6', ipv4: v4(p[6], p[7]) };
    case 'rfc6145':
      return { form: 'an IPv4-translated (RFC 6145)', ipv4: v4(p[6], p[7]) };
    case 'rfc6052':
      return { form: 'a NAT64 (RFC 6052)', ipv4: v4(p[6], p[7]) };
    case '6to4':
      return { form: 'a 6to4', ipv4: v4(p[1], p[2]) };
    case 'teredo':
      return { form: 'a Teredo', ipv4: v4(~p[6] & 0xffff, ~p[7] & 0xffff) };
    default:
      return null;
  }
}

/**
 * An IPv6 address as the URL standard writes it (`::127.0.0.1` -> `::7f00:1`), zone dropped; any
 * other string as it is. ipaddr.js reads a dotted tail after `::` as IPv4-mapped whatever comes
 * before it (`::8.8.8.8` would pass as 8.8.8.8), so it is given the hexadecimal form only.
 */
function canonicalIPv6(address: string): string {
  if (isIP(address) !== 6) return address;
  const bare = address.split('%')[0];
  try {
    return new URL(`http://[${bare}]/`).hostname.slice(1, -1);
  } catch {
    return bare;
  }
}

/**
 * Why this address may not be a webhook target, or null when it may. Only public unicast may. An
 * IPv4-mapped address (`::ffff:127.0.0.1`) is judged as the IPv4 address it is; every other IPv6
 * form that carries an IPv4 address (IPv4-compatible `::127.0.0.1`, IPv4-translated, NAT64, 6to4,
 * Teredo) is refused whatever it carries: a host or gateway on the way may deliver it to that IPv4
 * address, private ones included, and no public receiver needs such an address.
 */
export function addressRefusal(address: string, allowPrivate: boolean): string | null {
  if (allowPrivate) return null;
  let ip: ipaddr.IPv4 | ipaddr.IPv6;
  try {
    // process(): an IPv4-mapped IPv6 address (::ffff:127.0.0.1) is judged as the IPv4 address it is
    ip = ipaddr.process(canonicalIPv6(address));
  } catch {
    return `${address} is not an IP address`;
  }
  let range: string = ip.range();
  if (ip.kind() === 'ipv6' && range === 'unicast' && (ip as ipaddr.IPv6).match(IPV4_COMPATIBLE))
    range = 'ipv4Compatible';
  if (range === 'unicast') return null;
  const carried = ip.kind() === 'ipv6' ? carriedIPv4(ip as ipaddr.IPv6, range) : null;
  if (carried) return `${address} is ${carried.form} address carrying ${carried.ipv4} (not allowed for webhooks)`;
  if (ip.kind() === 'ipv4' && isIP(address) === 6)
    return `${address} is the IPv4-mapped form of ${ip.toString()}, a ${range} address (not allowed for webhooks)`;
  return `${address} is a ${range} address (not allowed for webhooks)`;
}

/** `[::1]` -> `::1`: the host of a URL as an address, when it is one. */
const bareHost = (hostname: string) =>
  hostname.startsWith('[') && hostname.endsWith(']') ? hostname.slice(1, -1) : hostname;

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
export async function allowedAddresses(
  hostname: string,
  allowPrivate: boolean,
  resolve: Resolver,
): Promise<LookupAddress[]> {
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
        if (wanted.length === 0)
          return callback(new RefusedAddressError(`${hostname} has no IPv${family} address`), '', 0);
        // as unknown as: with `all` Node's lookup contract takes the address list, a form its LookupFunction type leaves out
        if (typeof options === 'object' && options.all)
          return (callback as unknown as (e: null, a: LookupAddress[]) => void)(null, wanted);
        callback(null, wanted[0].address, wanted[0].family);
      },
      (error: NodeJS.ErrnoException) => callback(error, '', 0),
    );
  };
}
