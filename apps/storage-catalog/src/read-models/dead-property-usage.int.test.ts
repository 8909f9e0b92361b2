/**
 * What one user's WebDAV dead properties may take (issue 33, item 6), through the handlers on the
 * real event store: what they hold over all their files and folders is bounded (507), freed when a
 * file or folder goes; what they write a day is bounded (429 until the next UTC day), a rewrite
 * that changes nothing appends and costs nothing; a COPY carrying properties counts like a
 * PROPPATCH, a MOVE does not add to what is held, a removed device frees its folders'; and the
 * figures are the same after a rebuild.
 */
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import {
  cleanUpTestStorage,
  DAY,
  expectError,
  restartStorage,
  startTestStorage,
  type TestStorage,
  type TestUser,
} from '../testing/test-context.js';
import { deadPropertyUsageCollection, type DeadPropertyLimits } from './dead-property-usage.js';

after(cleanUpTestStorage);

const KEY = '{urn:x}big';
/** one property of ~60 KB (the reported attack's size), different each time `n` differs */
const big = (n: number) => ({ [KEY]: `${n}:${'v'.repeat(60_000)}` });
const BIG = Buffer.byteLength(KEY) + 60_002;

async function setUp(limits: DeadPropertyLimits): Promise<{
  t: TestStorage;
  user: TestUser;
  set: (path: string, props: Record<string, string>, remove?: string[]) => Promise<unknown>;
}> {
  const t = await startTestStorage({ deadProperties: limits });
  const user = await t.createUser(await t.createPartner());
  await t.registerDevice(user, 'laptop');
  const set = (path: string, props: Record<string, string>, remove: string[] = []) =>
    t.folders.setProperties({ userId: user.userId, device: 'laptop', path, set: props, remove });
  return { t, user, set };
}

describe('dead properties per user', () => {
  it('writes per day are bounded (429 with Retry-After until the next UTC day); a rewrite that changes nothing appends nothing and costs nothing', async () => {
    const { t, user, set } = await setUp({ maxBytesPerUser: 1 << 30, maxWriteBytesPerDay: 400_000 });
    try {
      await t.upload(user, 'laptop', 'f.txt', 'f');
      let n = 0;
      for (; n * BIG + BIG <= 400_000; n++) await set('f.txt', big(n));
      assert.equal(n, 6);
      const head = await t.store.headPosition();
      // the same value again: nothing appended, nothing refused
      await set('f.txt', big(n - 1));
      assert.equal(await t.store.headPosition(), head);
      const refused = await expectError(set('f.txt', big(n)), 429);
      assert.ok(refused.body.retry_after! > 0 && refused.body.retry_after! <= DAY);
      assert.equal(await t.store.headPosition(), head, 'a refused rewrite appends nothing');
      // removing (a set that shrinks) is let through
      await set('f.txt', {}, [KEY]);
      // the next day, writes are possible again
      t.clock.advance(refused.body.retry_after!);
      await set('f.txt', big(n));
    } finally {
      await t.close();
    }
  });

  it('what a user holds is bounded (507) over all files and folders; a deletion frees it; a COPY counts, a MOVE does not add; a rebuild finds the same', async () => {
    const { t, user, set } = await setUp({ maxBytesPerUser: 200_000, maxWriteBytesPerDay: 1 << 30 });
    try {
      for (const f of ['a.txt', 'b.txt', 'c.txt', 'd/e.txt']) await t.upload(user, 'laptop', f, f);
      await set('a.txt', big(1));
      await set('b.txt', big(2));
      await set('d', big(3));
      await expectError(set('c.txt', big(4)), 507);
      // another user is not held by it
      const other = await t.createUser(await t.createPartner());
      await t.registerDevice(other, 'laptop');
      await t.upload(other, 'laptop', 'c.txt', 'c');
      await t.folders.setProperties({ userId: other.userId, device: 'laptop', path: 'c.txt', set: big(4), remove: [] });
      // a COPY of a file with properties is refused at the bound; a MOVE is not
      await expectError(
        t.transfers.transfer({
          userId: user.userId,
          mode: 'copy',
          from: { device: 'laptop', path: 'a.txt' },
          to: { device: 'laptop', path: 'copy.txt' },
          overwrite: false,
        }),
        507,
      );
      await t.transfers.transfer({
        userId: user.userId,
        mode: 'move',
        from: { device: 'laptop', path: 'a.txt' },
        to: { device: 'laptop', path: 'moved.txt' },
        overwrite: false,
      });
      // deleting a file frees what its properties took; so does deleting a folder
      await t.deletePath(user, 'laptop', 'moved.txt');
      await set('c.txt', big(4));
      await t.upload(user, 'laptop', 'a2.txt', 'a2');
      await expectError(set('a2.txt', big(5)), 507);
      await t.deletePath(user, 'laptop', 'd/');
      await set('a2.txt', big(5));
      const usage = async (s: TestStorage) => (await deadPropertyUsageCollection(s.docs).get(user.userId))?.stored;
      assert.equal(await usage(t), 3 * BIG);
      // a removed device's folders take theirs with them
      await t.registerDevice(user, 'phone');
      await t.upload(user, 'phone', 'x/y.txt', 'y');
      await t.folders.setProperties({
        userId: user.userId,
        device: 'phone',
        path: 'x',
        set: { '{urn:x}s': 'small' },
        remove: [],
      });
      assert.equal(await usage(t), 3 * BIG + Buffer.byteLength('{urn:x}s') + 5);
      await t.removeDevice(user, 'phone');
      assert.equal(await usage(t), 3 * BIG);
      const again = await restartStorage(t, {
        deadProperties: { maxBytesPerUser: 200_000, maxWriteBytesPerDay: 1 << 30 },
      });
      try {
        assert.equal(await usage(again), 3 * BIG, 'the read model rebuilt from the events holds the same figure');
      } finally {
        await again.close();
      }
    } catch (error) {
      await t.close();
      throw error;
    }
  });
});
