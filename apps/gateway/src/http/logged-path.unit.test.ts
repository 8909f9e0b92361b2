import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { loggedPath } from './logged-path.js';

describe('loggedPath', () => {
  it('hides a set-password token and leaves other paths alone', () => {
    assert.equal(loggedPath('/set-password/0a1b.c2.3.MAC'), '/set-password/[token]');
    assert.equal(loggedPath('/SET-PASSWORD/abc/'), '/SET-PASSWORD/[token]/');
    assert.equal(loggedPath('/users/jdoe'), '/users/jdoe');
    assert.equal(loggedPath('/storage/MFXG4/set-password/x'), '/storage/MFXG4/set-password/x');
  });
});
