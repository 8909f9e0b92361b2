import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { unmapIPv4 } from './ip-address.js';

describe('unmapIPv4', () => {
  it('unmaps an IPv4-mapped IPv6 address', () => {
    assert.equal(unmapIPv4('::ffff:192.0.2.1'), '192.0.2.1');
    assert.equal(unmapIPv4('::ffff:127.0.0.1'), '127.0.0.1');
  });

  it('leaves every other string as it is', () => {
    for (const address of [
      '192.0.2.1',
      '2001:db8::1',
      '::1',
      '::ffff:abcd',
      '::ffff:1.2.3',
      'ffff:192.0.2.1',
      '',
      'unknown',
      '::FFFF:192.0.2.1',
    ]) {
      assert.equal(unmapIPv4(address), address);
    }
  });
});
