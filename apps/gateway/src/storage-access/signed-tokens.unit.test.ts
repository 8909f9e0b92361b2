/**
 * Signed tokens, verified and then remembered: what the memo may never do is accept a token the
 * full check would refuse (expired since, another kind, altered, under a key not in the set).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { TokenSigner } from './signed-tokens.js';

function signer(keys = ['first-key-0123456789', 'second-key-0123456789']) {
  let ms = Date.UTC(2026, 0, 1);
  const s = new TokenSigner(keys, () => ms);
  return { s, advance: (seconds: number) => (ms += seconds * 1000) };
}

describe('TokenSigner', () => {
  it('verifies a token again and again, with the same payload, until it expires; then never again', () => {
    const { s, advance } = signer();
    const token = s.sign('session', { u: 'u1', st: 'stamp', sid: 'sid-1' }, 60);
    const first = s.verify<{ u: string }>('session', token);
    assert.equal(first?.u, 'u1');
    assert.deepEqual(s.verify('session', token), first);
    assert.ok(Object.isFrozen(first), 'the remembered payload is shared: frozen');
    advance(59);
    assert.equal(s.verify<{ u: string }>('session', token)?.u, 'u1');
    advance(1);
    assert.equal(s.verify('session', token), null, 'expired: the memo does not outlive exp');
    assert.equal(s.verify('session', token), null);
  });

  it('a remembered token is still refused as another kind, altered, or by a signer without its key', () => {
    const { s } = signer();
    const token = s.sign('link', { d: 'laptop', p: 'a.txt' }, 600);
    assert.ok(s.verify('link', token));
    assert.equal(s.verify('session', token), null, 'the MAC covers the kind');
    const [body, keyId, mac] = token.split('.');
    const flipped = `${body}.${keyId}.${mac.slice(0, -2)}${mac.endsWith('AA') ? 'AB' : 'AA'}`;
    assert.equal(s.verify('link', flipped), null);
    const other = `${Buffer.from(JSON.stringify({ d: 'desktop', p: 'a.txt', exp: 9e9 })).toString('base64url')}.${keyId}.${mac}`;
    assert.equal(s.verify('link', other), null, 'another payload under the remembered MAC');
    // a replica whose key set no longer holds the signing key refuses it, whatever another remembers
    assert.equal(signer(['second-key-0123456789']).s.verify('link', token), null);
  });

  it('a MAC spelled another way that decodes to the same bytes is refused: only the one spelling passes', () => {
    const { s } = signer();
    const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
    for (let i = 0; i < 50; i++) {
      const token = s.sign('extension', { r: `file-${i}` }, 600);
      const [body, keyId, mac] = token.split('.');
      // 32 bytes in 43 characters: the last one carries 4 bits, its 2 low bits are ignored by decoding
      const last = ALPHABET.indexOf(mac.at(-1)!);
      const respelled = `${mac.slice(0, -1)}${ALPHABET[last ^ 1]}`;
      assert.deepEqual(Buffer.from(respelled, 'base64url'), Buffer.from(mac, 'base64url'), 'the same bytes');
      assert.equal(s.verify('extension', `${body}.${keyId}.${respelled}`), null, respelled);
      assert.equal(s.verify('extension', `${body}.${keyId}.${mac}=`), null, 'padding');
      assert.ok(s.verify('extension', token), 'the token itself still passes');
    }
  });
});
