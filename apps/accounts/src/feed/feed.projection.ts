/**
 * The partner's event feed as a read model: every internal event that means something to a
 * partner becomes one or more public entries (public-events.ts), each at a position derived from
 * the event's global position (`position * FEED_SLOTS + k`), so positions and ids are the same on
 * every replica and after every rebuild, and a page after a position never changes once written.
 *
 * The projection keeps its own small state (who a user, device or group belongs to, each user's
 * stored bytes and quota level, each device's open hour of backup activity) rather than reading
 * other projections' read models, so the feed is a function of the event log alone. Per-document
 * `pos` marks make a re-applied event (a crash between a write and the checkpoint) change nothing;
 * entries are written before the state they were computed from, so a re-application recomputes them
 * identically.
 */
import {
  changesUserBytes,
  type BackupActivityHourClosed,
  type DeviceRegistered,
  type FileVersionCommitted,
  type FileVersionsPurged,
  type GroupCreated,
  type PlanAdded,
  type PublicEvent,
  type PublicEventType,
  type ShareRoomAccessed,
  StreamPrefixes,
  type UserCreated,
} from '@burrow/contracts';
import { afterCommit, type DocumentStore } from '@burrow/documents';
import { type Projection, projectionOver, dataOf } from '@burrow/eventsourcing';
import type { RecordedEvent } from '@burrow/event-store';
import { hash } from 'node:crypto';
import { storageBytesOf } from '../read-models/users.projection.js';
import type { FeedSignals } from './feed-signals.js';
import {
  type ActivityCounts,
  activityOf,
  activitySummary,
  deviceEvents,
  type Draft,
  groupEvents,
  partnerEvents,
  quotaCrossing,
  shareEvents,
  userEvents,
} from './public-events.js';
import { crossings, type QuotaLevel, quotaLevel } from './quota-thresholds.js';

/** Public entries one internal event can make at most (its positions are `position * FEED_SLOTS + 0..9`). */
export const FEED_SLOTS = 10;
export const HOUR_MS = 3_600_000;

export interface FeedEntryDoc {
  _id: string;
  partnerId: string;
  position: number;
  /** the global position of the internal event it came from */
  source: number;
  id: string;
  type: PublicEventType;
  time: string;
  data: Record<string, unknown>;
  [key: string]: unknown;
}

interface Applied {
  _id: string;
  /** the last event position applied to this document */
  pos: number;
  [key: string]: unknown;
}

interface FeedUser extends Applied {
  partnerId: string;
  username: string;
  plan_id: number;
  bonus_bytes: number;
  bytes: number;
  level: QuotaLevel;
}

interface FeedDevice extends Applied {
  partnerId: string;
  userId: string;
  username: string;
  name: string;
  bytes: number;
  /** the latest hour (start, ms) whose activity was summarised */
  closedThrough: number | null;
}

interface FeedGroup extends Applied {
  partnerId: string;
}

interface ActivityBucket extends Applied, ActivityCounts {
  deviceId: string;
  partnerId: string;
  username: string;
  device: string;
  /** the hour's start, ms */
  hour: number;
}

export const feedEntries = (docs: DocumentStore) => docs.collection<FeedEntryDoc>('feed_entries');
const feedUsers = (docs: DocumentStore) => docs.collection<FeedUser>('feed_users');
const feedDevices = (docs: DocumentStore) => docs.collection<FeedDevice>('feed_devices');
const feedGroups = (docs: DocumentStore) => docs.collection<FeedGroup>('feed_groups');
const feedPlans = (docs: DocumentStore) => docs.collection<{ _id: string; storage_bytes: number }>('feed_plans');
/** Per share room: when its last share.accessed was (event time, unix s), and the downloads counted since. */
interface FeedRoom extends Applied {
  announced: number | null;
  pending: number;
}
const feedRooms = (docs: DocumentStore) => docs.collection<FeedRoom>('feed_rooms');
/** At most one share.accessed per room per hour. */
const ACCESS_EVENT_EVERY_SECONDS = 3600;

/** Open hours of device activity (a summarised hour's bucket is deleted). */
export const activityBuckets = (docs: DocumentStore) => docs.collection<ActivityBucket>('feed_activity');

export const toPublicEvent = (e: FeedEntryDoc): PublicEvent =>
  ({ id: e.id, position: e.position, type: e.type, time: e.time, data: e.data }) as PublicEvent;

/**
 * Stable across replicas and rebuilds: a digest of where the internal event is and which entry of
 * it this is. `hash` is `createHash(...).update(...).digest(...)` in one call, without the Hash
 * object (0.3 against 0.85 µs here: one per entry, so per event of a rebuild).
 */
const entryId = (event: RecordedEvent, k: number) =>
  `evt_${hash('sha256', `${event.stream}\n${event.revision}\n${k}`, 'hex').slice(0, 32)}`;

const fresh = (doc: Applied | null, event: RecordedEvent) => !doc || doc.pos < event.position;
const hourOf = (ms: number) => Math.floor(ms / HOUR_MS) * HOUR_MS;

/** One event's work: the entries it makes (by partner) and the state writes, done entries first. */
class Change {
  readonly entries: { partnerId: string; draft: Draft }[] = [];
  readonly writes: (() => Promise<unknown>)[] = [];

  add(partnerId: string, draft: Draft | null): void {
    if (draft) this.entries.push({ partnerId, draft });
  }

  after(write: () => Promise<unknown>): void {
    this.writes.push(write);
  }
}

/** What the feed reads: users, groups, devices, files, share rooms, partners, plans, the hour markers. */
export const FEED_PREFIXES = [
  StreamPrefixes.user,
  StreamPrefixes.group,
  StreamPrefixes.device,
  StreamPrefixes.file,
  StreamPrefixes.share,
  StreamPrefixes.partner,
  StreamPrefixes.planCatalogue,
  StreamPrefixes.backupActivity,
];

/** The feed's projection (its code closes over the batch's store: `projectionOver`). */
export const feedProjection = (signals?: FeedSignals): Projection =>
  projectionOver('feed', FEED_PREFIXES, (docs) => {
    const users = feedUsers(docs);
    const devices = feedDevices(docs);

    async function storageOf(user: FeedUser): Promise<number> {
      const plan = await feedPlans(docs).get(String(user.plan_id));
      return storageBytesOf(
        plan ? { plan_id: user.plan_id, storage_bytes: plan.storage_bytes, name: '', promo: false } : undefined,
        user.bonus_bytes,
      );
    }

    /** The user's stored bytes, plan or bonus changed: a quota crossing is news. */
    async function requota(
      change: Change,
      user: FeedUser,
      event: RecordedEvent,
      edit: (u: FeedUser) => void,
    ): Promise<void> {
      if (!fresh(user, event)) return;
      edit(user);
      const storage = await storageOf(user);
      const level = quotaLevel(user.bytes, storage);
      for (const crossed of crossings(user.level, level))
        change.add(user.partnerId, quotaCrossing(user, crossed, user.bytes, storage));
      user.level = level;
      user.pos = event.position;
      change.after(() => users.upsert(user));
    }

    async function applyUser(change: Change, event: RecordedEvent): Promise<void> {
      const userId = event.stream.slice(StreamPrefixes.user.length);
      if (event.type === 'UserCreated') {
        const d = dataOf<UserCreated>(event);
        change.add(d.partnerId, userEvents.UserCreated(d));
        const user: FeedUser = {
          _id: userId,
          partnerId: d.partnerId,
          username: d.username,
          plan_id: d.plan_id,
          bonus_bytes: d.bonus_bytes,
          bytes: 0,
          level: 0,
          pos: event.position,
        };
        change.after(() => users.upsert(user));
        return;
      }
      const user = await users.get(userId);
      if (!user) return;
      const d = event.data as never;
      switch (event.type) {
        case 'UserRenamed':
        case 'UserEmailChanged':
        case 'UserBonusChanged':
        case 'UserPurgeHoldChanged':
        case 'UserPlanChanged':
        case 'UserGroupChanged':
        case 'UserEnabled':
        case 'UserDisabled':
        case 'UserPasswordChanged':
          change.add(user.partnerId, userEvents[event.type](d, user));
          break;
        case 'UserDeleted':
          change.add(user.partnerId, userEvents.UserDeleted(d, user));
          change.after(() => users.delete(userId));
          return;
        default:
          return;
      }
      if (event.type === 'UserPlanChanged')
        await requota(change, user, event, (u) => (u.plan_id = (event.data as { plan_id: number }).plan_id));
      if (event.type === 'UserBonusChanged')
        await requota(
          change,
          user,
          event,
          (u) => (u.bonus_bytes = (event.data as { bonus_bytes: number }).bonus_bytes),
        );
    }

    async function applyGroup(change: Change, event: RecordedEvent): Promise<void> {
      const id = event.stream.slice(StreamPrefixes.group.length);
      if (event.type === 'GroupCreated') {
        const d = dataOf<GroupCreated>(event);
        change.add(d.partnerId, groupEvents.GroupCreated(d));
        change.after(() => feedGroups(docs).upsert({ _id: id, partnerId: d.partnerId, pos: event.position }));
        return;
      }
      const group = await feedGroups(docs).get(id);
      if (!group) return;
      const d = event.data as never;
      switch (event.type) {
        case 'GroupRenamed':
        case 'GroupPolicyChanged':
        case 'GroupDevicePolicyChanged':
        case 'GroupPlanChanged':
          change.add(group.partnerId, groupEvents[event.type](d, Number(id)));
          return;
        case 'GroupDeleted':
          change.add(group.partnerId, groupEvents.GroupDeleted(d, Number(id)));
          change.after(() => feedGroups(docs).delete(id));
          return;
        default:
          return;
      }
    }

    /** Counts activity into the device's open hour: the event's hour, or the first after the last summarised. */
    async function countActivity(
      change: Change,
      device: FeedDevice,
      event: RecordedEvent,
      counts: Partial<ActivityCounts>,
    ): Promise<void> {
      let hour = hourOf(event.recordedAt);
      if (
        device.closedThrough !== null &&
        hour <= device.closedThrough &&
        !(await activityBuckets(docs).get(`${device._id}:${hour}`))
      ) {
        hour = device.closedThrough + HOUR_MS;
      }
      const id = `${device._id}:${hour}`;
      const bucket: ActivityBucket = (await activityBuckets(docs).get(id)) ?? {
        _id: id,
        deviceId: device._id,
        partnerId: device.partnerId,
        username: device.username,
        device: device.name,
        hour,
        pos: 0,
        files_committed: 0,
        bytes_committed: 0,
        files_deleted: 0,
        folders_deleted: 0,
        backups_completed: 0,
      };
      if (!fresh(bucket, event)) return;
      for (const [key, n] of Object.entries(counts) as [keyof ActivityCounts, number][]) bucket[key] += n;
      bucket.pos = event.position;
      change.after(() => activityBuckets(docs).upsert(bucket));
    }

    async function applyDevice(change: Change, event: RecordedEvent): Promise<void> {
      const deviceId = event.stream.slice(StreamPrefixes.device.length);
      if (event.type === 'DeviceRegistered') {
        const d = dataOf<DeviceRegistered>(event);
        const user = await users.get(d.userId);
        if (!user) return;
        change.add(user.partnerId, deviceEvents.DeviceRegistered(d, user));
        const device: FeedDevice = {
          _id: deviceId,
          partnerId: user.partnerId,
          userId: d.userId,
          username: user.username,
          name: d.name,
          bytes: 0,
          closedThrough: null,
          pos: event.position,
        };
        change.after(() => devices.upsert(device));
        return;
      }
      const device = await devices.get(deviceId);
      if (!device) return;
      if (event.type === 'DeviceRemoved') {
        change.add(
          device.partnerId,
          deviceEvents.DeviceRemoved(null, { username: device.username, device: device.name }),
        );
        const user = await users.get(device.userId);
        if (user) await requota(change, user, event, (u) => (u.bytes -= device.bytes));
        change.after(() => devices.delete(deviceId));
        return;
      }
      const counts = activityOf(event.type, event.data as never);
      if (counts) await countActivity(change, device, event, counts);
    }

    async function applyFile(change: Change, event: RecordedEvent): Promise<void> {
      const d = dataOf<FileVersionCommitted | FileVersionsPurged>(event);
      const device = await devices.get(d.deviceId);
      // a removed device's bytes left with it
      if (!device) return;
      const counts = activityOf(event.type, event.data as never);
      if (counts) await countActivity(change, device, event, counts);
      // a WebDAV move's FileMovedOut takes its bytes off the source device, as a purge does
      if (event.type !== 'FileVersionCommitted' && event.type !== 'FileVersionsPurged' && event.type !== 'FileMovedOut')
        return;
      const delta =
        event.type === 'FileVersionCommitted'
          ? (d as FileVersionCommitted['data']).size
          : -(d as FileVersionsPurged['data']).bytes;
      if (fresh(device, event)) {
        device.bytes += delta;
        device.pos = event.position;
        change.after(() => devices.upsert(device));
      }
      // a WebDAV move's two halves move bytes between devices: the user's total (and its quota thresholds) stays
      if (!changesUserBytes(event)) return;
      const user = await users.get(device.userId);
      if (user) await requota(change, user, event, (u) => (u.bytes += delta));
    }

    async function applyShare(change: Change, event: RecordedEvent): Promise<void> {
      const user = await users.get(event.stream.slice(StreamPrefixes.share.length));
      if (!user) return;
      const d = event.data as never;
      switch (event.type) {
        case 'ShareRoomCreated':
          change.add(user.partnerId, shareEvents.ShareRoomCreated(d, user));
          return;
        case 'ShareRoomUpdated':
        case 'ShareRoomEnabled':
        case 'ShareRoomDisabled':
        case 'ShareRoomDeleted':
        case 'ShareRoomPasswordSet':
          change.add(user.partnerId, shareEvents[event.type](d, user));
          return;
        case 'ShareRoomAccessed':
          return accessed(change, user, event);
        default:
          return;
      }
    }

    /** A room's visits: a share.accessed when the room's last one is an hour old (or none), carrying the downloads since it. */
    async function accessed(change: Change, user: FeedUser, event: RecordedEvent): Promise<void> {
      const d = dataOf<ShareRoomAccessed>(event);
      const id = `${user._id}:${d.room_key}`;
      const room = (await feedRooms(docs).get(id)) ?? { _id: id, pos: -1, announced: null, pending: 0 };
      if (!fresh(room, event)) return;
      room.pending += d.downloads;
      if (room.announced === null || d.at - room.announced >= ACCESS_EVENT_EVERY_SECONDS) {
        change.add(user.partnerId, shareEvents.ShareRoomAccessed({ ...d, downloads: room.pending }, user));
        room.announced = d.at;
        room.pending = 0;
      }
      room.pos = event.position;
      change.after(() => feedRooms(docs).upsert(room));
    }

    /** The hour is over: what it counted becomes one summary, and later activity counts in a later hour. */
    async function applyHourClosed(change: Change, event: RecordedEvent): Promise<void> {
      const { deviceId, hour } = dataOf<BackupActivityHourClosed>(event);
      const bucket = await activityBuckets(docs).get(`${deviceId}:${hour}`);
      if (bucket) {
        change.add(
          bucket.partnerId,
          activitySummary({ username: bucket.username, device: bucket.device }, hour, bucket),
        );
        change.after(() => activityBuckets(docs).delete(bucket._id));
      }
      const device = await devices.get(deviceId);
      if (device && fresh(device, event) && (device.closedThrough ?? -1) < hour) {
        device.closedThrough = hour;
        device.pos = event.position;
        change.after(() => devices.upsert(device));
      }
    }

    async function changeOf(event: RecordedEvent): Promise<Change> {
      const change = new Change();
      const { stream } = event;
      if (stream.startsWith(StreamPrefixes.user)) await applyUser(change, event);
      else if (stream.startsWith(StreamPrefixes.group)) await applyGroup(change, event);
      else if (stream.startsWith(StreamPrefixes.device)) await applyDevice(change, event);
      else if (stream.startsWith(StreamPrefixes.file)) await applyFile(change, event);
      else if (stream.startsWith(StreamPrefixes.share)) await applyShare(change, event);
      else if (stream.startsWith(StreamPrefixes.backupActivity)) await applyHourClosed(change, event);
      else if (stream.startsWith(StreamPrefixes.partner) && event.type === 'PartnerPasswordChanged') {
        change.add(stream.slice(StreamPrefixes.partner.length), partnerEvents.PartnerPasswordChanged());
      } else if (stream === StreamPrefixes.planCatalogue && event.type === 'PlanAdded') {
        const d = dataOf<PlanAdded>(event);
        change.after(() => feedPlans(docs).upsert({ _id: String(d.plan_id), storage_bytes: d.storage_bytes }));
      }
      return change;
    }

    return {
      async init() {
        // (an event's entries are found by id, `position * FEED_SLOTS + k`: no index on `source`)
        await feedEntries(docs).ensureIndex({ partnerId: 1, position: 1 });
        await activityBuckets(docs).ensureIndex({ hour: 1 });
      },
      async apply(event) {
        const change = await changeOf(event);
        if (change.entries.length > FEED_SLOTS)
          throw new Error(`${event.type} made ${change.entries.length} feed entries (at most ${FEED_SLOTS})`);
        const time = new Date(event.recordedAt).toISOString();
        for (const [k, { partnerId, draft }] of change.entries.entries()) {
          const position = event.position * FEED_SLOTS + k;
          await feedEntries(docs).upsert({
            _id: String(position),
            partnerId,
            position,
            source: event.position,
            id: entryId(event, k),
            type: draft.type,
            time,
            data: draft.data,
          });
        }
        for (const write of change.writes) await write();
        if (change.entries.length)
          afterCommit(docs, () => signals?.entriesAdded(new Set(change.entries.map((e) => e.partnerId))));
      },
    };
  });

/** A page of the partner's feed after `after`, oldest first. */
export async function feedPage(
  docs: DocumentStore,
  partnerId: string,
  after: number,
  limit: number,
): Promise<{ events: PublicEvent[]; next_after: number; has_more: boolean }> {
  const found = await feedEntries(docs).find(
    { partnerId, position: { $gt: after } },
    { sort: { position: 1 }, limit: limit + 1 },
  );
  const events = found.slice(0, limit).map(toPublicEvent);
  return { events, next_after: events.at(-1)?.position ?? after, has_more: found.length > limit };
}
