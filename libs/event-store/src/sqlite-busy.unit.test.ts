import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { whileBusy } from './sqlite-file.js';

const sqliteError = (code: string) => Object.assign(new Error(code), { code });

describe('whileBusy (opening a file other processes open at the same time)', () => {
  it('tries again while SQLite answers SQLITE_BUSY or one of its extended codes, then returns the answer', () => {
    const codes = ['SQLITE_BUSY', 'SQLITE_BUSY_SNAPSHOT', 'SQLITE_BUSY_RECOVERY'];
    let calls = 0;
    const answer = whileBusy(() => {
      if (calls < codes.length) throw sqliteError(codes[calls++]);
      calls += 1;
      return 'done';
    });
    assert.equal(answer, 'done');
    assert.equal(calls, codes.length + 1);
  });

  it('any other error is thrown at once', () => {
    let calls = 0;
    assert.throws(
      () =>
        whileBusy(() => {
          calls += 1;
          throw sqliteError('SQLITE_CORRUPT');
        }),
      /SQLITE_CORRUPT/,
    );
    assert.equal(calls, 1);
  });
});
