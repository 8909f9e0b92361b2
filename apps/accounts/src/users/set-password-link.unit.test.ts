/** Set-password link tokens: what was signed reads back; an altered or respelled one does not. */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { describe, it } from 'node:test';
import { newLinkNonce, readLink, signLink } from './set-password-link.js';

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';

describe('set-password link tokens', () => {
  it('read back what was signed; refuse another secret, altered claims, and a MAC spelled another way', () => {
    for (let i = 0; i < 50; i++) {
      const claims = { userId: randomUUID(), nonce: newLinkNonce(), expiresAt: 1_900_000_000 + i };
      const token = signLink('secret-1', claims);
      assert.deepEqual(readLink('secret-1', token), claims);
      assert.equal(readLink('secret-2', token), null, 'another secret');
      assert.equal(readLink('secret-1', token.replace(`.${claims.expiresAt}.`, `.${claims.expiresAt + 1}.`)), null);
      // 32 bytes in 43 characters: the last carries 4 bits, its 2 low bits are ignored by decoding
      const last = ALPHABET.indexOf(token.at(-1)!);
      const respelled = `${token.slice(0, -1)}${ALPHABET[last ^ 1]}`;
      const mac = (t: string) => Buffer.from(t.split('.').at(-1)!, 'base64url');
      assert.deepEqual(mac(respelled), mac(token), 'the same bytes');
      assert.equal(readLink('secret-1', respelled), null, respelled);
    }
  });
});
