/**
 * The webhooks projection makes the same deliveries whether each event is a batch of its own (live)
 * or the whole log is one batch (a rebuild), with endpoints registered, disabled and enabled
 * between the events of that batch.
 */
import { ALL_EVENT_TYPES } from '@burrow/contracts';
import { MemoryDocumentStore } from '@burrow/documents';
import { SqliteEventStore } from '@burrow/event-store';
import { appendEvents, ProjectionRunner } from '@burrow/eventsourcing';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { FEED_SLOTS, feedProjection } from '../feed/feed.projection.js';
import { deliveriesCollection, deliveryIdOf, webhooksProjection } from './webhooks.projection.js';

describe('webhooks projection: live and rebuilt', () => {
  let dir: string;
  let store: SqliteEventStore;
  const partner = randomUUID();
  const other = randomUUID();
  const expected: string[] = [];

  const createUser = async (partnerId: string, i: number) => {
    const userId = randomUUID();
    const data = {
      userId,
      partnerId,
      username: `user-${i}`,
      name: `User ${i}`,
      email: `user-${i}@example.com`,
      plan_id: 1,
      group_id: null,
      bonus_bytes: 0,
      avatar_id: 0,
      share_id: String(1000 + i),
      creation_time: 1,
      passwordHash: '',
    };
    return (await appendEvents(store, `user-${userId}`, [{ type: 'UserCreated', data }], 'no_stream')).position;
  };
  const endpoint = (id: string, type: string, data: Record<string, unknown>) =>
    appendEvents(store, `webhook-${id}`, [{ type, data: { at: 1, ...data } }], 'any');
  const register = (id: string, partnerId: string) =>
    endpoint(id, 'WebhookEndpointRegistered', {
      endpointId: id,
      partnerId,
      url: 'https://example.com/hook',
      event_types: [ALL_EVENT_TYPES],
      description: '',
      secret: { nonce: 'n', keyId: 'k' },
    });

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'burrow-webhooks-projection-'));
    store = SqliteEventStore.open(join(dir, 'events.sqlite'), { pollIntervalMs: 20 });
    await createUser(partner, 1); // no endpoint yet
    await register('e1', partner);
    expected.push(deliveryIdOf('e1', (await createUser(partner, 2)) * FEED_SLOTS));
    await register('e2', other);
    expected.push(deliveryIdOf('e1', (await createUser(partner, 3)) * FEED_SLOTS));
    expected.push(deliveryIdOf('e2', (await createUser(other, 4)) * FEED_SLOTS));
    await endpoint('e1', 'WebhookEndpointDisabled', { reason: 'test', by: 'partner' });
    await createUser(partner, 5); // e1 disabled
    await endpoint('e1', 'WebhookEndpointEnabled', {});
    expected.push(deliveryIdOf('e1', (await createUser(partner, 6)) * FEED_SLOTS));
    await endpoint('e2', 'WebhookEndpointDisabled', { reason: 'test', by: 'system' });
    await createUser(other, 7); // e2 disabled
    expected.sort();
  });
  after(async () => {
    await store.close();
    await rm(dir, { recursive: true, force: true });
  });

  for (const [mode, maxBatchEvents] of [
    ['one event per batch', 1],
    ['the whole log in one batch', undefined],
  ] as const) {
    it(`delivers each event to the endpoints enabled for its partner when it happened: ${mode}`, async () => {
      const docs = new MemoryDocumentStore();
      const runner = new ProjectionRunner(store, docs, [feedProjection(), webhooksProjection()], { maxBatchEvents });
      await runner.start();
      await runner.stop();
      const deliveries = await deliveriesCollection(docs).find({});
      assert.deepEqual(deliveries.map((d) => d._id).sort(), expected);
    });
  }
});
