import assert from 'node:assert/strict';
import { scryptSync } from 'node:crypto';
import { describe, it } from 'node:test';
import {
  DEFAULT_SCRYPT_N,
  generateSecret,
  hashPassword,
  setPasswordHashCost,
  verifyPassword,
} from './password-hash.js';

/** hashPassword('secret-password') as the first scheme made it (commit 5c48202), before scrypt2. */
const OLD_SCHEME_HASH = 'scrypt$16384$8$1$IAV46w/V+Nm2SsOdqKPpQQ==$HGI8fFB/2Cwcw6+s1mRelucpKjKSQpom8M3sFjR2BFQ=';

describe('password hashing (scrypt)', () => {
  it('verifies the right password and refuses others', async () => {
    const hash = await hashPassword('correct horse');
    assert.match(hash, /^scrypt2\$16384\$8\$1\$/);
    assert.doesNotMatch(hash, /correct horse/);
    assert.equal(await verifyPassword('correct horse', hash), true);
    assert.equal(await verifyPassword('correct horsE', hash), false);
  });

  it('salts: the same password hashes differently', async () => {
    assert.notEqual(await hashPassword('same'), await hashPassword('same'));
  });

  it('refuses a malformed stored hash', async () => {
    assert.equal(await verifyPassword('x', 'plain-text'), false);
  });

  it('a password followed by NUL bytes is not the password', async () => {
    const hash = await hashPassword('secret-password');
    for (const variant of ['secret-password\0', 'secret-password\0\0\0', 'secret-pass\0word']) {
      assert.equal(await verifyPassword(variant, hash), false, JSON.stringify(variant));
    }
    // exact by construction, not only by refusing NUL: plain scrypt of the NUL-padded password
    // (what the first scheme compared) does not reproduce the stored hash
    const [, , , , salt, stored] = hash.split('$');
    const padded = scryptSync('secret-password\0', Buffer.from(salt, 'base64'), 32, { N: 16384, r: 8, p: 1 });
    assert.notEqual(padded.toString('base64'), stored);
  });

  it('hashes of the first scheme still verify, and their trailing-NUL variants do not', async () => {
    assert.equal(await verifyPassword('secret-password', OLD_SCHEME_HASH), true);
    assert.equal(await verifyPassword('secret-passworD', OLD_SCHEME_HASH), false);
    for (const variant of ['secret-password\0', 'secret-password\0\0']) {
      assert.equal(await verifyPassword(variant, OLD_SCHEME_HASH), false, JSON.stringify(variant));
    }
    // the scheme itself could not tell them apart: that is why verification refuses NUL
    const [, , , , salt, stored] = OLD_SCHEME_HASH.split('$');
    assert.equal(
      scryptSync('secret-password\0', Buffer.from(salt, 'base64'), 32, { N: 16384, r: 8, p: 1 }).toString('base64'),
      stored,
    );
  });

  it('refuses to hash a password holding NUL', async () => {
    await assert.rejects(hashPassword('secret\0password'), /NUL/);
  });

  it('a generated secret (128 random bits) is stored as a salted HMAC and verifies exactly', async () => {
    const a = generateSecret();
    const b = generateSecret();
    assert.match(a.secret, /^[A-Za-z0-9_-]{22}$/, '16 bytes, base64url');
    assert.notEqual(a.secret, b.secret);
    assert.match(a.hash, /^random1\$[A-Za-z0-9+/]{22}==\$[A-Za-z0-9+/]{43}=$/);
    assert.ok(!a.hash.includes(a.secret));
    assert.equal(await verifyPassword(a.secret, a.hash), true);
    assert.equal(await verifyPassword(b.secret, a.hash), false);
    assert.equal(await verifyPassword(`${a.secret}\0`, a.hash), false);
    assert.equal(await verifyPassword(a.secret.slice(0, -1), a.hash), false);
    // a damaged stored value refuses rather than throws
    assert.equal(await verifyPassword(a.secret, `${a.hash.slice(0, -8)}`), false);
  });

  it('makes new hashes at the configured cost, and verifies hashes of any cost it ever made', async () => {
    const before = await hashPassword('cost-password');
    try {
      setPasswordHashCost(1024);
      const cheap = await hashPassword('cost-password');
      assert.match(cheap, /^scrypt2\$1024\$8\$1\$/);
      assert.equal(await verifyPassword('cost-password', cheap), true);
      assert.equal(await verifyPassword('cost-passworD', cheap), false);
      assert.equal(
        await verifyPassword('cost-password', before),
        true,
        'a hash made at the default cost still verifies',
      );
    } finally {
      setPasswordHashCost(DEFAULT_SCRYPT_N);
    }
    assert.match(await hashPassword('x'), /^scrypt2\$16384\$/);
    for (const bad of [512, 1000, 131072, 0])
      assert.throws(() => setPasswordHashCost(bad), /power of two from 1024 to 65536/);
  });

  it('refuses to compute a stored hash whose cost is beyond anything Burrow makes', async () => {
    const hash = await hashPassword('p');
    const absurd = hash.replace(/^scrypt2\$16384\$/, 'scrypt2$1048576$');
    assert.equal(await verifyPassword('p', absurd), false);
  });
});
