import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { plainSubjectRoute } from './subject-route.js';

describe('plainSubjectRoute', () => {
  it('a dotted subject name is its own route', () => {
    assert.equal(plainSubjectRoute('accounts.getUser'), 'accounts.getUser');
    assert.equal(plainSubjectRoute('storage-catalog.open_file'), 'storage-catalog.open_file');
  });

  it('leaves to Nest what JSON.parse would read as something else', () => {
    for (const pattern of ['{"cmd":"x"}', '"quoted"', '42', 'true', 'null', '', 'a b'])
      assert.equal(plainSubjectRoute(pattern), undefined, pattern);
  });
});
