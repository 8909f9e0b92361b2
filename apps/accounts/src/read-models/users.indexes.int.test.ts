/**
 * The users read model's indexes (issue 37: the user document is rewritten for the bytes of about
 * every other upload, each index an entry rewritten): the queries that lost an index of their own
 * are still answered by one that narrows them to a few rows, not by one that only serves an order
 * or a partner (the embedded store's planner, EXPLAIN QUERY PLAN on a store with data), and a store
 * an older build made loses the indexes no query needs.
 */
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { SqliteDocumentStore, type Write } from '@burrow/documents';
import { usersProjection } from './users.projection.js';

describe('users read model indexes (embedded store)', () => {
  let dir: string;
  let store: SqliteDocumentStore;
  const indexes = (collection: string) =>
    (
      store
        .statement("SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = ? AND name LIKE 'i:%'")
        .all(`c:${collection}`) as { name: string }[]
    )
      .map((r) => r.name)
      .sort();

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'burrow-user-indexes-'));
    store = SqliteDocumentStore.open(join(dir, 'read-models.sqlite'));
    // what an older build made
    await store.collection('users').ensureIndex({ partnerId: 1, usernameKey: 1 });
    await store.collection('users').ensureIndex({ partnerId: 1, emailKey: 1 });
    await store.collection('user_devices').ensureIndex({ userId: 1 });
    await usersProjection().init!(store);
    // one large partner and a few small ones; emails shared across partners
    const writes: Write[] = [];
    for (let i = 0; i < 3000; i++) {
      const partnerId = i < 2500 ? 'big' : `small-${i % 5}`;
      writes.push({
        kind: 'put',
        collection: 'users',
        doc: {
          _id: `u${i}`,
          partnerId,
          username: `User${i}`,
          usernameKey: `user${i}`,
          email: `e${i % 700}@x.example`,
          emailKey: `e${i % 700}@x.example`,
          group_id: i % 10 ? null : `g${i % 3}`,
          last_backup: i,
        },
      });
    }
    for (let i = 0; i < 3000; i++)
      writes.push({
        kind: 'put',
        collection: 'user_devices',
        doc: { _id: `d${i}`, userId: `u${i % 300}`, bytes: 1, last_backup: i % 7 ? i : null },
      });
    await store.commit('test', 0, {}, writes);
  });
  after(async () => {
    await store.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('a store made by an older build loses (partnerId, usernameKey), (partnerId, emailKey) and the lone userId of user devices', () => {
    assert.deepEqual(indexes('users'), [
      'i:users:{"emailKey":1}',
      'i:users:{"partnerId":1,"group_id":1,"username":1}',
      'i:users:{"partnerId":1,"last_backup":1}',
      'i:users:{"partnerId":1,"username":1}',
      'i:users:{"username":1}:unique',
      'i:users:{"usernameKey":1}',
    ]);
    assert.deepEqual(indexes('user_devices'), ['i:user_devices:{"userId":1,"last_backup":-1}']);
  });

  it("a partner's user by name key or email key is looked up by the key, not through the partner's users", async () => {
    assert.match(
      store.explainFind('users', { partnerId: 'big', usernameKey: 'user10' }, { limit: 1 }).join('\n'),
      /USING INDEX i:users:\{"usernameKey":1\} \(<expr>=\?\)/,
    );
    assert.match(
      store.explainFind('users', { partnerId: 'big', emailKey: 'e10@x.example' }, { limit: 1 }).join('\n'),
      /USING INDEX i:users:\{"emailKey":1\} \(<expr>=\?\)/,
    );
    const users = store.collection('users');
    assert.equal(
      (await users.findOne({ partnerId: 'small-1', emailKey: 'e106@x.example' }))?._id,
      'u2906',
      'the partner is checked on the rows the key finds',
    );
    assert.equal(await users.findOne({ partnerId: 'big', usernameKey: 'user2906' }), null);
  });

  it("a user's devices: the latest backup and the delete by user through (userId, last_backup)", async () => {
    assert.match(
      store
        .explainFind(
          'user_devices',
          { userId: 'u5', last_backup: { $ne: null } },
          { sort: { last_backup: -1 }, limit: 1 },
        )
        .join('\n'),
      /USING INDEX i:user_devices:\{"userId":1,"last_backup":-1\} \(<expr>=\?\)/,
    );
    assert.match(
      store.explainFind('user_devices', { userId: 'u5' }).join('\n'),
      /USING INDEX i:user_devices:\{"userId":1,"last_backup":-1\} \(<expr>=\?\)/,
    );
    const [latest] = await store
      .collection('user_devices')
      .find({ userId: 'u5', last_backup: { $ne: null } }, { sort: { last_backup: -1 }, limit: 1 });
    assert.equal(latest._id, 'd2705');
  });

  it("a group's members in name order still through (partnerId, group_id, username)", () => {
    assert.match(
      store.explainFind('users', { partnerId: 'big', group_id: 'g1' }, { sort: { username: 1 }, limit: 20 }).join('\n'),
      /USING INDEX i:users:\{"partnerId":1,"group_id":1,"username":1\} \(<expr>=\? AND <expr>=\?\)/,
    );
  });
});
