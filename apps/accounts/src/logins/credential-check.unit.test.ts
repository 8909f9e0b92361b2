/**
 * CredentialCheck's cache of verified credentials: a credential verified once is recognised again
 * (the throttle is told it is verified, and no scrypt runs), and nothing else is: another password,
 * another name, or the same password against a changed stored hash is checked in full.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { AccountsContext } from '../context.js';
import { CredentialCheck } from './credential-check.js';
import { hashPassword } from './password-hash.js';

function harness() {
  const begun: boolean[] = [];
  const ctx = {
    secret: 'test-secret',
    docs: { privateToProcess: false },
    logins: {
      begin: async (_login: unknown, options: { verified?: boolean }) => {
        begun.push(options.verified ?? false);
        return { succeeded: async () => undefined, failed: async () => undefined };
      },
    },
  } as unknown as AccountsContext;
  return { check: new CredentialCheck(ctx, 'partner', 'refused'), begun };
}

describe('CredentialCheck: verified credentials remembered', () => {
  it('recognises a verified credential, and only that one', async () => {
    const { check, begun } = harness();
    let stored = await hashPassword('right-password');
    const find = async () => ({ id: 'p1' });
    const hashOf = async () => stored;
    const login = (name: string, password: string) => check.check({ name, password }, find, hashOf);

    assert.equal(await login('acme', 'right-password'), 'p1');
    assert.equal(await login('acme', 'right-password'), 'p1');
    assert.deepEqual(begun, [false, true], 'the second login was recognised');

    await assert.rejects(login('acme', 'wrong-password'), /refused/);
    assert.equal(begun.at(-1), false, 'another password is not recognised');
    assert.equal(await login('ACME', 'right-password'), 'p1');
    assert.equal(begun.at(-1), false, 'another spelling of the name is checked in full');

    // the password changed: the old one is refused at once, cached or not
    stored = await hashPassword('new-password');
    await assert.rejects(login('acme', 'right-password'), /refused/);
    assert.equal(begun.at(-1), false);
    assert.equal(await login('acme', 'new-password'), 'p1');
    assert.equal(await login('acme', 'new-password'), 'p1');
    assert.equal(begun.at(-1), true);
  });

  it('a cache is its instance’s own: another instance checks in full', async () => {
    const a = harness();
    const b = harness();
    const stored = await hashPassword('right-password');
    const args = [async () => ({ id: 'p1' }), async () => stored] as const;
    await a.check.check({ name: 'acme', password: 'right-password' }, ...args);
    await b.check.check({ name: 'acme', password: 'right-password' }, ...args);
    assert.deepEqual([a.begun, b.begun], [[false], [false]]);
  });
});
