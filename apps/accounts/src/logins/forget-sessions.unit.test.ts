/**
 * What the gateways are told to forget after writes made outside a request (recovery): the streams
 * appended through the noting view decide it, the read models are waited for first, and a write
 * that appends nothing a login check reads tells nobody.
 */
import { SqliteEventStore } from '@burrow/event-store';
import type { SessionForget } from '@burrow/contracts';
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { forgettingAfter, notingAppends } from './forget-sessions.js';

describe('forgetting after writes made outside a request', () => {
  let dir: string;
  let store: SqliteEventStore;
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'burrow-forget-'));
    store = SqliteEventStore.open(join(dir, 'events.sqlite'));
  });
  after(async () => {
    await store.close();
    await rm(dir, { recursive: true, force: true });
  });

  /** a recording of what the gateways were told, and when the read models were waited for */
  function recorder() {
    const trail: string[] = [];
    const told: Omit<SessionForget, 'id'>[] = [];
    return {
      trail,
      told,
      forgets: {
        forget: async (what: Omit<SessionForget, 'id'>) => {
          trail.push('forget');
          told.push(what);
        },
      },
      settled: async () => {
        trail.push('settled');
      },
    };
  }
  const event = { type: 'Noted', data: {} };

  it("a user's stream: that user is forgotten, after the read models have it", async () => {
    const noted = notingAppends(store);
    const r = recorder();
    const result = await forgettingAfter(r.forgets, r.settled, async () => {
      await noted.append('user-u1', [event], 'any');
      await noted.append('user-u2', [event], 'any');
      await noted.append('user-u1', [event], 'any');
      return 'done';
    });
    assert.equal(result, 'done');
    assert.deepEqual(r.trail, ['settled', 'forget']);
    assert.deepEqual(r.told, [{ users: ['u1', 'u2'] }]);
  });

  it("a group's or a partner's stream: everything is forgotten", async () => {
    for (const stream of ['group-g1', 'partner-p1']) {
      const noted = notingAppends(store);
      const r = recorder();
      await forgettingAfter(r.forgets, r.settled, async () => {
        await noted.append('user-u3', [event], 'any');
        await noted.append(stream, [event], 'any');
      });
      assert.deepEqual(r.told, [{ all: true }], stream);
    }
  });

  it('streams a login check does not read, or no appends: nobody is told or waited for', async () => {
    const noted = notingAppends(store);
    const r = recorder();
    await forgettingAfter(r.forgets, r.settled, async () => {
      await noted.append('allocation-p1', [event], 'any');
      await noted.append('reservation-username-x', [event], 'any');
    });
    await forgettingAfter(r.forgets, r.settled, async () => undefined);
    assert.deepEqual(r.trail, []);
  });

  it('the store itself, not the noting view, is not noted', async () => {
    const r = recorder();
    await forgettingAfter(r.forgets, r.settled, async () => {
      await store.append('user-u4', [event], 'any');
    });
    assert.deepEqual(r.told, []);
  });

  it('a write that fails after appending still forgets; its error is the one thrown', async () => {
    const noted = notingAppends(store);
    const r = recorder();
    await assert.rejects(
      forgettingAfter(r.forgets, r.settled, async () => {
        await noted.append('user-u5', [event], 'any');
        throw new Error('step failed');
      }),
      /step failed/,
    );
    assert.deepEqual(r.told, [{ users: ['u5'] }]);
  });

  it('read models that do not answer do not stop the forget', async () => {
    const noted = notingAppends(store);
    const r = recorder();
    await forgettingAfter(
      r.forgets,
      async () => {
        throw new Error('read models are behind; retry');
      },
      async () => {
        await noted.append('user-u6', [event], 'any');
      },
    );
    assert.deepEqual(r.told, [{ users: ['u6'] }]);
  });

  it('appends of the deferring view are noted too', async () => {
    const noted = notingAppends(store);
    const r = recorder();
    await forgettingAfter(r.forgets, r.settled, async () => {
      await noted.deferringDurability!().append('user-u7', [event], 'any');
      await noted.append('user-u8', [event], 'any');
    });
    assert.deepEqual(r.told, [{ users: ['u7', 'u8'] }]);
  });
});
