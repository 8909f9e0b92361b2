/**
 * The client address as per-address limits count it (login throttling in accounts, connection
 * limits in the gateway). IPv4 (also written IPv4-mapped, `::ffff:a.b.c.d`)
 * is the address itself; IPv6 is its /64 network, the block one subscriber usually gets, so an
 * attacker cannot reset the per-address budget by hopping addresses inside their own block, and a
 * known home or office network stays known when privacy extensions rotate the host part.
 */
import { unmapIPv4 } from './ip-address.js';
import { isIPv4, isIPv6 } from 'node:net';

/** Expands an IPv6 address (without zone) to its eight 16-bit groups. */
function ipv6Groups(address: string): number[] {
  const groupsOf = (part: string): number[] =>
    part === ''
      ? []
      : part.split(':').flatMap((g) => {
          if (!g.includes('.')) return [parseInt(g, 16)];
          const [a, b, c, d] = g.split('.').map(Number);
          return [(a << 8) | b, (c << 8) | d];
        });
  const [head, tail] = address.includes('::') ? address.split('::') : [address, undefined];
  const start = groupsOf(head);
  if (tail === undefined) return start;
  const end = groupsOf(tail);
  return [...start, ...new Array<number>(8 - start.length - end.length).fill(0), ...end];
}

export function clientAddressKey(address: string | undefined): string {
  const given = typeof address === 'string' ? address : '';
  let key = keys.get(given);
  if (key === undefined) {
    key = keyOf(given);
    // a pure function of the address, asked several times per request by the same few clients
    if (keys.size >= KEYS_REMEMBERED) keys.clear();
    keys.set(given, key);
  }
  return key;
}

const KEYS_REMEMBERED = 10_000;
const keys = new Map<string, string>();

function keyOf(address: string): string {
  const raw = unmapIPv4(address.trim().toLowerCase().split('%')[0]);
  if (isIPv4(raw)) return raw;
  if (isIPv6(raw))
    return `${ipv6Groups(raw)
      .slice(0, 4)
      .map((g) => g.toString(16))
      .join(':')}::/64`;
  // not an address (a caller on the bus that has none): all such callers share one budget
  return raw === '' ? 'unknown' : `other:${raw.slice(0, 100)}`;
}
