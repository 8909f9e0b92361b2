import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { clientAddressKey } from './client-address-key.js';
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

describe('clientAddressKey, asked again', () => {
  it('gives the same key every time it is asked, past the number of addresses it remembers', () => {
    const addresses = Array.from({ length: 12_000 }, (_, i) => `2001:db8:${(i % 65536).toString(16)}::${i % 7}`);
    const first = addresses.map((a) => clientAddressKey(a));
    assert.deepEqual(
      addresses.map((a) => clientAddressKey(a)),
      first,
    );
    assert.equal(clientAddressKey('::ffff:192.0.2.7'), '192.0.2.7');
    assert.equal(clientAddressKey('::FFFF:192.0.2.7'), '192.0.2.7');
    assert.equal(clientAddressKey('2001:DB8:1:2:3:4:5:6%eth0'), '2001:db8:1:2::/64');
    assert.equal(clientAddressKey(undefined), 'unknown');
    assert.equal(clientAddressKey(''), 'unknown');
  });
});
