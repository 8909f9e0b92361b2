/**
 * A password followed by NUL bytes used to log in as the password (scrypt's HMAC key padding made
 * trailing zero bytes equivalent). Over HTTP: such a login is refused, and a new password holding
 * NUL is a 400 naming the field.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { partnerApi } from './harness/client.js';
import { startStandalone, type TestTarget } from './harness/standalone.js';

describe('passwords and NUL characters (standalone)', () => {
  let target: TestTarget;
  before(async () => {
    target = await startStandalone();
  });
  after(async () => {
    await target?.close();
  });

  it('the partner password followed by NUL bytes does not log in', async () => {
    await partnerApi(target).get('/ping').expect(200);
    for (const password of [`${target.partner.password}\0`, `${target.partner.password}\0\0`]) {
      const res = await partnerApi(target, target.url, { username: target.partner.username, password }).get('/ping');
      assert.equal(res.status, 401, JSON.stringify(password));
    }
  });

  it('a new partner password holding NUL is refused with a 400 naming the field', async () => {
    const res = await partnerApi(target).post('/partner/password', 'new-password\0');
    assert.equal(res.status, 400);
    assert.deepEqual(res.body.fields, ['password']);
    await partnerApi(target).get('/ping').expect(200);
  });

  it('a new user password holding NUL is refused with a 400 naming the field', async () => {
    const res = await partnerApi(target).post('/users/', {
      name: 'Nul',
      email: 'nul@example.com',
      username: 'nuluser',
      password: 'user-password\0',
      plan_id: 1,
    });
    assert.equal(res.status, 400);
    assert.deepEqual(res.body.fields, ['password']);
  });
});
