/** Name reservations on the real SQLite store: of concurrent claims exactly one wins; only the owner releases. */
import { DomainError } from '@burrow/contracts';
import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { nameKey, releaseName, reservationHolder, reserveName } from './reservation.js';
import { openTempStore, type TempStore } from './testing/temp-store.js';

describe('reservations', () => {
  let t: TempStore;
  beforeEach(async () => {
    t = await openTempStore();
  });
  afterEach(async () => {
    await t.dispose();
  });

  it('of two concurrent reserves of one name exactly one wins; the other gets a 409 naming the field', async () => {
    const results = await Promise.allSettled([
      reserveName(t.store, 'username-ann', 'u1', 'username'),
      reserveName(t.store, 'username-ann', 'u2', 'username'),
    ]);
    const won = results.flatMap((r, i) => (r.status === 'fulfilled' ? [`u${i + 1}`] : []));
    assert.equal(won.length, 1);
    const [lost] = results.filter((r) => r.status === 'rejected');
    assert.ok(lost.reason instanceof DomainError);
    assert.equal(lost.reason.status, 409);
    assert.deepEqual(lost.reason.body.conflicts, ['username']);
    assert.equal(await reservationHolder(t.store, 'username-ann'), won[0]);
    assert.equal((await t.store.readStream('username-ann')).length, 1);
  });

  it('twenty concurrent claimants: one owner, one event', async () => {
    const owners = Array.from({ length: 20 }, (_, i) => `owner-${i}`);
    const results = await Promise.allSettled(owners.map((o) => reserveName(t.store, 'email-x', o, 'email')));
    const winners = owners.filter((_, i) => results[i].status === 'fulfilled');
    assert.equal(winners.length, 1);
    assert.equal(await reservationHolder(t.store, 'email-x'), winners[0]);
    assert.deepEqual(
      (await t.store.readStream('email-x')).map((e) => e.type),
      ['NameReserved'],
    );
  });

  it('reserving again by the same owner is a no-op', async () => {
    await reserveName(t.store, 'username-bo', 'u1', 'username');
    await reserveName(t.store, 'username-bo', 'u1', 'username');
    await Promise.all([
      reserveName(t.store, 'username-bo', 'u1', 'username'),
      reserveName(t.store, 'username-bo', 'u1', 'username'),
    ]);
    assert.equal((await t.store.readStream('username-bo')).length, 1);
    assert.equal(await reservationHolder(t.store, 'username-bo'), 'u1');
  });

  it("a release by a non-owner does nothing; the owner's frees the name for someone else", async () => {
    await reserveName(t.store, 'username-cy', 'u1', 'username');
    await releaseName(t.store, 'username-cy', 'u2');
    assert.equal(await reservationHolder(t.store, 'username-cy'), 'u1');
    assert.equal((await t.store.readStream('username-cy')).length, 1);
    await assert.rejects(reserveName(t.store, 'username-cy', 'u2', 'username'), (e: DomainError) => e.status === 409);

    await releaseName(t.store, 'username-cy', 'u1');
    await releaseName(t.store, 'username-cy', 'u1');
    assert.equal(await reservationHolder(t.store, 'username-cy'), null);
    assert.deepEqual(
      (await t.store.readStream('username-cy')).map((e) => e.type),
      ['NameReserved', 'NameReleased'],
    );
    await reserveName(t.store, 'username-cy', 'u2', 'username');
    assert.equal(await reservationHolder(t.store, 'username-cy'), 'u2');
    // the former owner's late release (a compensation run twice) cannot free the new owner's name
    await releaseName(t.store, 'username-cy', 'u1');
    assert.equal(await reservationHolder(t.store, 'username-cy'), 'u2');
  });

  it('releasing a name nobody holds appends nothing', async () => {
    await releaseName(t.store, 'username-free', 'u1');
    assert.deepEqual(await t.store.readStream('username-free'), []);
    assert.equal(await reservationHolder(t.store, 'username-free'), null);
  });

  it('name keys ignore case and surrounding blanks and are safe in a stream name', () => {
    assert.equal(nameKey('  Ann.Lee@Example.COM '), 'ann.lee%40example.com');
    assert.equal(nameKey('Sales/EMEA'), nameKey('sales/emea'));
    assert.equal(nameKey('Sales/EMEA'), 'sales%2Femea');
  });
});
