import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ISO_3166_1_ALPHA_2, isCountryCode } from '@burrow/contracts';

describe('ISO 3166-1 alpha-2 list', () => {
  it('holds the 249 officially assigned codes, each two capital letters', () => {
    assert.equal(ISO_3166_1_ALPHA_2.size, 249);
    for (const [code, name] of ISO_3166_1_ALPHA_2) {
      assert.match(code, /^[A-Z]{2}$/);
      assert.ok(name.length > 0);
    }
  });

  it('knows assigned codes and refuses reserved and user-assigned ones', () => {
    for (const code of ['US', 'GB', 'DE', 'SS', 'CW', 'AX', 'EH']) assert.equal(isCountryCode(code), true, code);
    for (const code of ['UK', 'EU', 'XK', 'AN', 'ZZ', 'us', '']) assert.equal(isCountryCode(code), false, code);
  });
});
