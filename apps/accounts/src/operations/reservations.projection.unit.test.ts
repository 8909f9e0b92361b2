/** What a reservation stream's name says (kind, name, partner), as the reservations read model keeps it. */
import { Streams } from '@burrow/contracts';
import { nameKey } from '@burrow/eventsourcing';
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { reservationOfStream } from './reservations.projection.js';

describe('reservationOfStream', () => {
  const partnerId = '0b6f3a52-1c2d-4e5f-8a9b-0c1d2e3f4a5b';

  it('reads the kind and the decoded name of every kind', () => {
    assert.deepEqual(reservationOfStream(Streams.reservation('username', nameKey(' Alice '))), {
      kind: 'username',
      name: 'alice',
    });
    assert.deepEqual(reservationOfStream(Streams.reservation('email', nameKey('Bob+x@Example.com'))), {
      kind: 'email',
      name: 'bob+x@example.com',
    });
    assert.deepEqual(reservationOfStream(Streams.reservation('partnername', nameKey('acme'))), {
      kind: 'partnername',
      name: 'acme',
    });
  });

  it('splits a group name from its partner id, dashes in either included', () => {
    assert.deepEqual(reservationOfStream(Streams.reservation('groupname', `${partnerId}-${nameKey('Sales - EU')}`)), {
      kind: 'groupname',
      name: 'sales - eu',
      partnerId,
    });
  });

  it('is null for a stream that is not a reservation', () => {
    assert.equal(reservationOfStream('user-123'), null);
    assert.equal(reservationOfStream('group-7'), null);
  });
});
