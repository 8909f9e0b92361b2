/** `search_by` on `GET /users/`: `field<op>value`, and the appliance's `recently_stopped_uploading=<A>|<B>`. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { DomainError } from '../errors.js';
import { parseQuery } from '../validation.js';
import { ListUsersQuery } from './requests.js';

const searchBy = (value: string) => parseQuery(ListUsersQuery, { search_by: value }).search_by;

describe('search_by', () => {
  it('reads recently_stopped_uploading=<A>|<B> as a window in seconds', () => {
    assert.deepEqual(searchBy('recently_stopped_uploading=7776000|259200'), {
      field: 'recently_stopped_uploading',
      within: 7776000,
      notWithin: 259200,
    });
    assert.deepEqual(searchBy(' recently_stopped_uploading = 10 | 0 '.trim()), {
      field: 'recently_stopped_uploading',
      within: 10,
      notWithin: 0,
    });
    assert.deepEqual(
      searchBy('recently_stopped_uploading=3|90'),
      { field: 'recently_stopped_uploading', within: 3, notWithin: 90 },
      'an empty window is not an error',
    );
  });

  it('refuses a malformed window with 400 naming search_by', () => {
    for (const bad of [
      'recently_stopped_uploading=7776000',
      'recently_stopped_uploading>1|2',
      'recently_stopped_uploading=-1|2',
      'recently_stopped_uploading=1|2|3',
      'recently_stopped_uploading=a|b',
      'recently_stopped_uploading=1.5|2',
      'recently_stopped_uploading=12345678901|2',
      'recently_stopped_uploading=|',
    ]) {
      assert.throws(
        () => searchBy(bad),
        (e: unknown) =>
          e instanceof DomainError && e.status === 400 && JSON.stringify(e.body.fields) === '["search_by"]',
        bad,
      );
    }
  });

  it('keeps field<op>value for the user fields', () => {
    assert.deepEqual(searchBy('last_login>1700000000'), { field: 'last_login', op: '>', value: 1700000000 });
    assert.deepEqual(searchBy('enabled=0'), { field: 'enabled', op: '=', value: false });
    assert.throws(() => searchBy('last_backup>1'), DomainError, 'the internal backup time is not a searchable field');
  });
});
