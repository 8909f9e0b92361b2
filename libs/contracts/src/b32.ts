/**
 * Usernames and share ids in storage and share URLs: RFC 4648 base32 (A-Z, 2-7) of the UTF-8 name,
 * upper-case, with the `=` padding removed (CLIENT-FACTS). Decoding accepts either case and
 * refuses anything that is not such an encoding.
 */
const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';

export function b32encode(text: string): string {
  const bytes = Buffer.from(text, 'utf8');
  let out = '';
  let buffer = 0;
  let bits = 0;
  for (const byte of bytes) {
    buffer = (buffer << 8) | byte;
    bits += 8;
    while (bits >= 5) {
      out += ALPHABET[(buffer >>> (bits - 5)) & 31];
      bits -= 5;
    }
    buffer &= (1 << bits) - 1;
  }
  if (bits > 0) out += ALPHABET[(buffer << (5 - bits)) & 31];
  return out;
}

/** The name, or null when `value` is not the unpadded base32 of a UTF-8 string. */
export function b32decode(value: string): string | null {
  const upper = value.replace(/=+$/, '').toUpperCase();
  // lengths that no whole number of bytes encodes to (1, 3 and 6 characters mod 8)
  if (upper === '' || !/^[A-Z2-7]+$/.test(upper) || [1, 3, 6].includes(upper.length % 8)) return null;
  const bytes: number[] = [];
  let buffer = 0;
  let bits = 0;
  for (const char of upper) {
    buffer = (buffer << 5) | ALPHABET.indexOf(char);
    bits += 5;
    if (bits >= 8) {
      bytes.push((buffer >>> (bits - 8)) & 255);
      bits -= 8;
    }
    buffer &= (1 << bits) - 1;
  }
  // the unused low bits of the last character must be zero in a canonical encoding
  if (buffer !== 0) return null;
  const text = Buffer.from(bytes).toString('utf8');
  return Buffer.from(text, 'utf8').equals(Buffer.from(bytes)) ? text : null;
}
