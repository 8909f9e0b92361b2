/**
 * The operator's reservation and recovery subjects (what the admin CLI calls), over the target's
 * bus: in-process in standalone mode, NATS in multi-process mode. A name stranded by a crash (a
 * reservation for an owner that was never recorded) blocks a user through the API until the
 * operator releases it; a live one is refused.
 */
import {
  type PendingWritesPage,
  type RecoverWritesReport,
  type ReleasedReservation,
  type ReservationPage,
  Streams,
  Subjects,
} from '@burrow/contracts';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { it } from 'node:test';
import { partnerApi } from '../harness/client.js';
import type { ScenarioContext } from './scenarios.js';

export function operationsScenarios({ target }: ScenarioContext) {
  const operator = () => target().operator;

  it('a username stranded by a crash is listed as stuck, released by the operator, then usable through the API', async () => {
    const store = await target().openEventStore();
    try {
      await store.append(
        Streams.reservation('username', 'stranded'),
        [{ type: 'NameReserved', data: { owner: randomUUID() } }],
        'no_stream',
      );
    } finally {
      await store.close();
    }
    const api = partnerApi(target());
    const user = {
      username: 'stranded',
      name: 'Stranded',
      email: 'stranded@example.com',
      password: 'stranded-password-1',
    };
    const blocked = await api.post('/users/', user);
    assert.equal(blocked.status, 409, blocked.text);
    assert.deepEqual(blocked.body.conflicts, ['username']);

    const stuck = await operator().call<ReservationPage>(Subjects.accounts.listReservations, { stuck: true });
    assert.deepEqual(
      stuck.reservations.map((r) => `${r.kind}:${r.name}:${r.status}`),
      ['username:stranded:stuck'],
    );
    const released = await operator().call<ReleasedReservation>(Subjects.accounts.releaseReservation, {
      kind: 'username',
      name: 'Stranded',
    });
    assert.equal(released.status, 'stuck');

    await api.post('/users/', user).expect(201);
    await assert.rejects(
      operator().call(Subjects.accounts.releaseReservation, { kind: 'username', name: 'stranded' }),
      (e: { status?: number; body?: { reason?: string } }) => e.status === 409 && /is live/.test(e.body?.reason ?? ''),
    );
    const usernames = await operator().call<ReservationPage>(Subjects.accounts.listReservations, { kind: 'username' });
    assert.equal(usernames.reservations.find((r) => r.name === 'stranded')?.status, 'live');
  });

  it('unfinished multi-step writes: none after requests that finished; recovery on demand reports what it did', async () => {
    const pending = await operator().call<PendingWritesPage>(Subjects.accounts.listPendingWrites, {});
    assert.deepEqual(pending.pending, []);
    assert.equal(pending.more, false);
    const report = await operator().call<RecoverWritesReport>(Subjects.accounts.recoverWrites, { grace_seconds: 0 });
    assert.deepEqual(report, { grace_seconds: 0, completed: [], compensated: [], failed: [] });
    await assert.rejects(
      operator().call(Subjects.accounts.listPendingWrites, { limit: 0 }),
      (e: { status?: number }) => e.status === 400,
    );
  });
}
