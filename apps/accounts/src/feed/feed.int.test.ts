/**
 * The feed as the accounts service builds it from real events (SQLite store, the service's own
 * handlers): the public vocabulary in order, per partner and nothing of another, no internal field,
 * stable positions and ids (a restart rebuilds the very same feed), paging that concatenates to the
 * whole, quota thresholds crossed, and device activity summarised per hour once the hour is closed.
 */
import { FeedEvent, type FileVersionCommitted, type PublicEvent, Streams } from '@burrow/contracts';
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { restart, startTestAccounts, type TestAccounts } from '../testing/test-context.js';
import { closeActivityHours } from './activity-summaries.js';
import { FeedHandlers } from './feed.handlers.js';
import { HOUR_MS } from './feed.projection.js';

const PLANS = [
  { name: 'small', storage_bytes: 1000, promo: false },
  { name: 'medium', storage_bytes: 2000, promo: false },
];

describe('partner feed', () => {
  let t: TestAccounts;
  let nowSeconds = Math.floor(Date.now() / 1000);
  let partnerA: string;
  let partnerB: string;
  let aliceId: string;
  const feed = (partnerId: string, after = 0, limit = 1000) =>
    new FeedHandlers(t.ctx).read({ partnerId, after, limit });
  const types = async (partnerId: string, after = 0) => (await feed(partnerId, after)).events.map((e) => e.type);
  let lastPosition = 0;
  /** the partner's events after the last call */
  const newEvents = async (partnerId: string): Promise<PublicEvent[]> => {
    const { events, next_after } = await feed(partnerId, lastPosition);
    lastPosition = next_after;
    return events;
  };

  const commit = (size: number, version: number): FileVersionCommitted => ({
    type: 'FileVersionCommitted',
    data: {
      fileId: `f-${version}`,
      deviceId: 'dev-alice',
      userId: aliceId,
      partnerId: partnerA,
      path: `Documents/${version}.txt`,
      version: 0,
      size,
      blob: 'b'.repeat(64),
      crc32: 1,
      mtime: 1,
      ctime: 1,
      at: nowSeconds,
    },
  });

  before(async () => {
    t = await startTestAccounts({ plans: PLANS, now: () => nowSeconds });
    partnerA = (await t.createPartner()).partner_id;
    partnerB = (await t.createPartner()).partner_id;
    await t.users.create({
      partnerId: partnerA,
      username: 'alice',
      name: 'Alice',
      email: 'alice@feed.example',
      plan_id: 1,
      password: 'alice-password-1',
    });
    await t.users.create({ partnerId: partnerB, username: 'bob', name: 'Bob', email: 'bob@feed.example', plan_id: 1 });
    aliceId = await t.userIdOf('alice');
  });
  after(async () => {
    await t.close();
  });

  it("lists what happened in the partner's brand, in order, and nothing of another partner", async () => {
    const group = await t.groups.create({ partnerId: partnerA, name: 'Engineering', plan_id: 1 });
    await t.groups.update({ partnerId: partnerA, group_id: group.group_id, changes: { name: 'Platform' } });
    await t.users.update({
      partnerId: partnerA,
      user: 'alice',
      changes: { name: 'Alice B', plan_id: 2, enabled: false, password: 'new-password-22' },
    });
    await t.partners.changePassword({ partnerId: partnerA, password: 'partner-password-new' });
    assert.deepEqual(await types(partnerA), [
      'user.created',
      'group.created',
      'group.changed',
      'user.changed',
      'user.plan_changed',
      'user.disabled',
      'user.password_changed',
      'partner.password_changed',
    ]);
    assert.deepEqual(await types(partnerB), ['user.created']);
    const [created] = (await feed(partnerB)).events;
    assert.deepEqual(created.data, {
      username: 'bob',
      name: 'Bob',
      email: 'bob@feed.example',
      plan_id: 1,
      group_id: null,
      bonus_bytes: 0,
      avatar_id: (created.data as { avatar_id: number }).avatar_id,
      creation_time: nowSeconds,
    });
    lastPosition = (await feed(partnerA)).next_after;
  });

  it('every event is a documented public event, with a unique id and an increasing position; no internal field', async () => {
    const { events } = await feed(partnerA);
    for (const e of events) assert.ok(FeedEvent.safeParse(e).success, JSON.stringify(e));
    assert.equal(new Set(events.map((e) => e.id)).size, events.length);
    for (let i = 1; i < events.length; i++) assert.ok(events[i].position > events[i - 1].position);
    const text = JSON.stringify(events);
    for (const internal of ['scrypt', 'passwordHash', aliceId, partnerA, 'new-password-22', 'partner-password-new'])
      assert.ok(!text.includes(internal), `the feed holds ${internal}`);
  });

  it('devices, quota thresholds (up and down) and share rooms', async () => {
    await t.storageEvents(Streams.device('dev-alice'), [
      {
        type: 'DeviceRegistered',
        data: {
          deviceId: 'dev-alice',
          userId: aliceId,
          partnerId: partnerA,
          name: 'laptop',
          sysplatform: 'linux',
          client_revision: 2,
          at: nowSeconds,
        },
      },
    ]);
    // plan 2 holds 2000 bytes: 1700 is 85%
    await t.storageEvents(Streams.file('f-1'), [commit(1700, 1)]);
    await t.storageEvents(Streams.share(aliceId), [
      {
        type: 'ShareRoomCreated',
        data: {
          room_key: 'k1',
          name: 'Photos',
          description: 'lake',
          dirs: ['laptop/Pictures/'],
          userId: aliceId,
          partnerId: partnerA,
          at: nowSeconds,
        },
      },
      { type: 'ShareRoomDisabled', data: { room_key: 'k1', at: nowSeconds } },
    ]);
    // back to plan 1 (1000 bytes): over 100%
    await t.users.update({ partnerId: partnerA, user: 'alice', changes: { plan_id: 1 } });
    await t.storageEvents(Streams.file('f-1'), [
      {
        type: 'FileVersionsPurged',
        data: {
          userId: aliceId,
          partnerId: partnerA,
          deviceId: 'dev-alice',
          path: 'Documents/1.txt',
          versions: [0],
          blobs: [],
          bytes: 1000,
          at: nowSeconds,
        },
      },
    ]);
    const events = await newEvents(partnerA);
    assert.deepEqual(
      events.map((e) => e.type),
      [
        'device.registered',
        'quota.threshold_crossed',
        'share_room.created',
        'share_room.disabled',
        'user.plan_changed',
        ...Array<string>(5).fill('quota.threshold_crossed'),
      ],
    );
    const crossings = events.filter((e) => e.type === 'quota.threshold_crossed').map((e) => e.data);
    assert.deepEqual(crossings, [
      { username: 'alice', threshold: 80, direction: 'up', bytes_stored: 1700, storage_bytes: 2000 },
      // 85% to 170%: 90 then 100, each its own event
      { username: 'alice', threshold: 90, direction: 'up', bytes_stored: 1700, storage_bytes: 1000 },
      { username: 'alice', threshold: 100, direction: 'up', bytes_stored: 1700, storage_bytes: 1000 },
      // 170% to 70%: under 100, 90 and 80, in that order
      { username: 'alice', threshold: 100, direction: 'down', bytes_stored: 700, storage_bytes: 1000 },
      { username: 'alice', threshold: 90, direction: 'down', bytes_stored: 700, storage_bytes: 1000 },
      { username: 'alice', threshold: 80, direction: 'down', bytes_stored: 700, storage_bytes: 1000 },
    ]);
    assert.deepEqual(events[0].data, { username: 'alice', device: 'laptop', sysplatform: 'linux', client_revision: 2 });
  });

  it("summarises a device's activity per hour once the hour is over; later activity counts in a later hour", async () => {
    await t.storageEvents(Streams.file('f-2'), [commit(10, 2)]);
    await t.storageEvents(Streams.device('dev-alice'), [{ type: 'BackupCompleted', data: { at: nowSeconds } }]);
    assert.equal(await closeActivityHours(t.ctx, 60_000), 0, 'the hour is not over');
    nowSeconds += 2 * 3600;
    assert.equal(await closeActivityHours(t.ctx, 60_000), 1);
    assert.equal(await closeActivityHours(t.ctx, 60_000), 0, 'closed once');
    const [summary] = (await newEvents(partnerA)).filter((e) => e.type === 'device.backup_activity');
    const { hour_start, ...counts } = summary.data as { hour_start: string };
    assert.deepEqual(counts, {
      username: 'alice',
      device: 'laptop',
      files_committed: 2,
      bytes_committed: 1710,
      files_deleted: 0,
      folders_deleted: 0,
      backups_completed: 1,
    });
    const hour = Date.parse(hour_start);
    assert.equal(hour % HOUR_MS, 0);
    assert.ok(hour <= Date.now() && Date.now() - hour < 2 * HOUR_MS);

    // recorded (by the store's clock) in the hour that was just closed: it rolls into the next
    await t.storageEvents(Streams.file('f-3'), [commit(5, 3)]);
    nowSeconds += 2 * 3600;
    assert.equal(await closeActivityHours(t.ctx, 60_000), 1);
    const [late] = (await newEvents(partnerA)).filter((e) => e.type === 'device.backup_activity');
    assert.equal((late.data as { files_committed: number }).files_committed, 1);
    assert.equal(Date.parse((late.data as { hour_start: string }).hour_start), hour + HOUR_MS);
  });

  it("a WebDAV move (the version committed at its new path, moved out of the old) crosses no quota threshold: the user's bytes do not change", async () => {
    // alice is at 700 of 1000 bytes: a 700-byte version counted twice, even for a moment, would cross 100%
    const moved = commit(700, 9);
    moved.data.moved_from = { deviceId: 'dev-alice', path: 'Documents/1.txt' };
    await t.storageEvents(Streams.file('f-9'), [moved]);
    await t.storageEvents(Streams.file('f-1'), [
      {
        type: 'FileMovedOut',
        data: {
          userId: aliceId,
          partnerId: partnerA,
          deviceId: 'dev-alice',
          path: 'Documents/1.txt',
          version: 1,
          bytes: 700,
          to: { deviceId: 'dev-alice', path: 'Documents/9.txt' },
          at: nowSeconds,
        },
      },
    ]);
    assert.deepEqual(
      (await newEvents(partnerA)).filter((e) => e.type === 'quota.threshold_crossed'),
      [],
    );
  });

  it('pages concatenate to the whole feed, and a restart rebuilds the very same feed', async () => {
    const whole = (await feed(partnerA)).events;
    const paged: PublicEvent[] = [];
    let cursor = 0;
    for (;;) {
      const page = await feed(partnerA, cursor, 3);
      paged.push(...page.events);
      cursor = page.next_after;
      if (!page.has_more) break;
    }
    assert.deepEqual(paged, whole);
    const [again] = await restart(t);
    t = again;
    assert.deepEqual((await feed(partnerA)).events, whole);
    assert.deepEqual((await feed(partnerA, whole[4].position)).events, whole.slice(5));
  });

  // the poll may wait 30 s: answering within the test's 20 s means it answered at the event
  it('a long poll waits for the next event and answers with it', { timeout: 20_000 }, async () => {
    const head = (await feed(partnerB)).next_after;
    const waiting = new FeedHandlers(t.ctx).read({ partnerId: partnerB, after: head, limit: 10, waitMs: 30_000 });
    await t.users.update({ partnerId: partnerB, user: 'bob', changes: { enabled: false } });
    const page = await waiting;
    assert.deepEqual(
      page.events.map((e) => e.type),
      ['user.disabled'],
    );
    assert.deepEqual(
      (await new FeedHandlers(t.ctx).read({ partnerId: partnerB, after: page.next_after, limit: 10, waitMs: 50 }))
        .events,
      [],
    );
  });
});
