/**
 * The password hash a login is checked against comes from the account's stream (a change through
 * another replica counts at once), yet a login does not read the whole stream: it grows with every
 * change of the account, so the cost of a login would grow with the account's age.
 */
import { type EventStore, type ReadOptions, SqliteEventStore } from '@burrow/event-store';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import type { AccountsContext } from './context.js';
import { latestPasswordHash } from './credential-check.js';

const TYPES = ['UserPasswordChanged', 'UserCreated'];

describe('latestPasswordHash', () => {
  const dir = mkdtempSync(join(tmpdir(), 'credential-check-'));
  after(() => rmSync(dir, { recursive: true, force: true }));

  /** A store whose reads are counted in events returned; `ctx` as the handlers have it. */
  function counted(file: string) {
    const inner = SqliteEventStore.open(join(dir, file));
    const reads = { events: 0 };
    const store: EventStore = Object.assign(Object.create(inner) as EventStore, {
      readStream: async (stream: string, options?: ReadOptions) => {
        const events = await inner.readStream(stream, options);
        reads.events += events.length;
        return events;
      },
    });
    return { store, reads, ctx: { store } as unknown as AccountsContext };
  }

  it('follows every change, from this process or another, reading only what is new', async () => {
    const { store, reads, ctx } = counted('a.sqlite');
    await store.append('user-1', [{ type: 'UserCreated', data: { passwordHash: 'h1' } }], 'no_stream');
    for (let i = 0; i < 500; i++) await store.append('user-1', [{ type: 'UserRenamed', data: { i } }], 'any');
    assert.equal(await latestPasswordHash(ctx, 'user-1', TYPES), 'h1');
    reads.events = 0;
    for (let i = 0; i < 20; i++) assert.equal(await latestPasswordHash(ctx, 'user-1', TYPES), 'h1');
    assert.equal(reads.events, 0, 'no event read while nothing changed: the revision says so');

    await store.append('user-1', [{ type: 'UserPasswordChanged', data: { passwordHash: 'h2' } }], 'any');
    assert.equal(await latestPasswordHash(ctx, 'user-1', TYPES), 'h2', 'a change is in force at once');
    for (let i = 0; i < 100; i++) await store.append('user-1', [{ type: 'UserRenamed', data: { i } }], 'any');
    reads.events = 0;
    assert.equal(await latestPasswordHash(ctx, 'user-1', TYPES), 'h2', 'unrelated events after it change nothing');
    assert.ok(reads.events <= 1 + 2 * 64, `${reads.events} events read: only those since the last look`);

    // another process appended a change while this one was not looking, under other events
    await store.append('user-1', [{ type: 'UserPasswordChanged', data: { passwordHash: 'h3' } }, { type: 'UserRenamed', data: {} }], 'any');
    assert.equal(await latestPasswordHash(ctx, 'user-1', TYPES), 'h3');
  });

  it('a fresh process finds the hash deep in a long stream; unknown streams have none', async () => {
    const { store, ctx } = counted('b.sqlite');
    await store.append('user-2', [{ type: 'UserCreated', data: { passwordHash: 'first' } }], 'no_stream');
    for (let i = 0; i < 300; i++) await store.append('user-2', [{ type: 'UserRenamed', data: { i } }], 'any');
    const fresh = counted('b.sqlite');
    assert.equal(await latestPasswordHash(fresh.ctx, 'user-2', TYPES), 'first');
    assert.equal(await latestPasswordHash(ctx, 'nobody', TYPES), null);
    await store.append('user-3', [{ type: 'UserRenamed', data: {} }], 'no_stream');
    assert.equal(await latestPasswordHash(ctx, 'user-3', TYPES), null);
  });
});
