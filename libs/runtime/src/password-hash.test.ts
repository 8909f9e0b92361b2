import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { hashPassword, verifyPassword } from './password-hash.js';

describe('password hashing (scrypt)', () => {
  it('verifies the right password and refuses others', async () => {
    const hash = await hashPassword('correct horse');
    assert.match(hash, /^scrypt\$16384\$8\$1\$/);
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
});
