/**
 * One way to write an IPv4 client's address: a dual-stack socket reports an IPv4 peer as
 * IPv4-mapped IPv6 (`::ffff:192.0.2.1`), while people, proxies and tokens write `192.0.2.1`.
 */
import { isIPv4 } from 'node:net';

const MAPPED = '::ffff:';

/** `::ffff:a.b.c.d` -> `a.b.c.d`; any other string as it is (the prefix is matched as written: lower-case). */
export function unmapIPv4(address: string): string {
  return address.startsWith(MAPPED) && isIPv4(address.slice(MAPPED.length)) ? address.slice(MAPPED.length) : address;
}
