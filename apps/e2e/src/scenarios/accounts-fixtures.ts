/**
 * What the accounts-interface scenarios share: typed shortcuts for creating groups and users over
 * HTTP, error-body assertions (the 409 `conflicts` list, the 400 `fields` list), bounded polling,
 * the record shape clients rely on, and a writer of storage-catalog events.
 *
 * Devices, shares and stored bytes reach accounts only through the storage catalog's `device-` and
 * `share-` streams (the integration contract), so the writer appends those events to the target's
 * event store file exactly as the storage catalog does; accounts' projection picks them up by
 * polling, in both deployment modes.
 */
import {
  type DeviceEvent,
  type FileEvent,
  fileIdOf,
  type Group,
  type Plan,
  type ShareEvent,
  Streams,
  UNLIMITED_BYTES,
  type UserRecord,
} from '@burrow/contracts';
import type { EventStore } from '@burrow/event-store';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import type supertest from 'supertest';
import type { PartnerApi } from '../harness/client.js';
import type { TestTarget } from '../harness/standalone.js';

export const GB = 1_000_000_000;
export const DAY = 86_400;
export const now = () => Math.floor(Date.now() / 1000);

// ---- errors -----------------------------------------------------------------------------------

/** A 409 whose body is `{"reason": string, "conflicts": [...]}` naming `token`. */
export function assertConflict(res: supertest.Response, token: string): void {
  assert.equal(res.status, 409, `expected 409 (${token}), got ${res.status}: ${res.text}`);
  assert.equal(typeof res.body.reason, 'string');
  assert.ok(res.body.reason.length > 0);
  assert.ok(Array.isArray(res.body.conflicts), `conflicts must be a list: ${res.text}`);
  assert.ok(res.body.conflicts.includes(token), `conflicts ${JSON.stringify(res.body.conflicts)} lacks ${token}`);
}

/** A 400 whose body names exactly these invalid fields (in any order) in its `fields` list. */
export function assertBadFields(res: supertest.Response, fields: string[]): void {
  assert.equal(res.status, 400, `expected 400, got ${res.status}: ${res.text}`);
  assert.equal(typeof res.body.reason, 'string');
  assert.ok(res.body.reason.length > 0);
  assert.deepEqual([...(res.body.fields ?? [])].sort(), [...fields].sort(), `fields of ${res.text}`);
}

/** Any error status with the JSON error body. */
export function assertError(res: supertest.Response, status: number): void {
  assert.equal(res.status, status, `expected ${status}, got ${res.status}: ${res.text}`);
  assert.match(res.headers['content-type'] ?? '', /application\/json/);
  assert.equal(typeof res.body.reason, 'string');
  assert.ok(res.body.reason.length > 0);
}

/** A POST reply is empty or valid JSON (CLIENT-FACTS). */
export function assertEmptyOrJson(res: supertest.Response): void {
  if (res.text === '' || res.text === undefined) return;
  assert.doesNotThrow(() => JSON.parse(res.text), `reply is not JSON: ${res.text}`);
}

// ---- polling ----------------------------------------------------------------------------------

/** Retries `check` until it stops throwing, for at most `timeoutMs`; rethrows the last failure. */
export async function eventually<T>(check: () => Promise<T>, timeoutMs = 5000, intervalMs = 50): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      return await check();
    } catch (error) {
      if (Date.now() > deadline) throw error;
      await new Promise((r) => setTimeout(r, intervalMs));
    }
  }
}

/**
 * The group once its members have followed its latest plan change: a plan change answers at once
 * and the members follow after the reply (`plan_status` is `updating` until then; issue 39).
 */
export async function settledGroup(api: PartnerApi, groupId: number): Promise<Group> {
  return eventually(
    async () => {
      const group = (await api.get(`/groups/${groupId}`).expect(200)).body as Group;
      assert.notEqual(group.plan_status, 'updating', `group ${groupId}'s members have not all followed its plan yet`);
      return group;
    },
    30_000,
    50,
  );
}

/** Runs `work` over `items` with at most `limit` in flight; results in input order. */
export async function mapLimit<T, R>(
  items: T[],
  limit: number,
  work: (item: T, index: number) => Promise<R>,
): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  const lanes = Array.from({ length: Math.min(limit, items.length) }, async () => {
    while (next < items.length) {
      const i = next++;
      results[i] = await work(items[i], i);
    }
  });
  await Promise.all(lanes);
  return results;
}

// ---- plans, groups, users ---------------------------------------------------------------------

export interface KnownPlans {
  all: Plan[];
  /** the three smallest limited plans, ascending by size */
  small: Plan;
  medium: Plan;
  large: Plan;
  promo: Plan;
  unlimited: Plan;
}

export async function knownPlans(api: PartnerApi): Promise<KnownPlans> {
  const all = (await api.get('/plans').expect(200)).body as Plan[];
  const limited = all
    .filter((p) => p.storage_bytes < UNLIMITED_BYTES && !p.promo)
    .sort((a, b) => a.storage_bytes - b.storage_bytes);
  assert.ok(limited.length >= 3, 'the default catalogue has three limited plans');
  const promo = all.find((p) => p.promo);
  const unlimited = all.find((p) => p.storage_bytes === UNLIMITED_BYTES);
  assert.ok(promo && unlimited, 'the catalogue has a promo plan and an unlimited plan');
  return { all, small: limited[0], medium: limited[1], large: limited[2], promo, unlimited };
}

export interface GroupBody {
  group_id: number;
  name: string;
  plan_id: number;
  webapi_enable: boolean;
  check_domain: boolean;
  device_policy: number | null;
}

export async function createGroup(api: PartnerApi, body: Record<string, unknown>): Promise<GroupBody> {
  const res = await api.post('/groups/', body);
  assert.equal(res.status, 201, `create group: ${res.status} ${res.text}`);
  const id = Number(/\/(\d+)$/.exec(res.headers.location ?? '')?.[1]);
  assert.ok(Number.isInteger(id) && id > 0, `Location ${res.headers.location}`);
  return (await api.get(`/groups/${id}`).expect(200)).body as GroupBody;
}

export interface CreatedUser {
  user: UserRecord;
  username: string;
  temp_password?: string;
}

let userSeq = 0;
/** A unique lower-case token for usernames and emails in this test process. */
export const unique = (prefix = 'u') =>
  `${prefix}${Date.now().toString(36)}${(userSeq++).toString(36)}${Math.random().toString(36).slice(2, 5)}`;

export async function createUser(api: PartnerApi, body: Record<string, unknown> = {}): Promise<CreatedUser> {
  const username = (body.username as string | undefined) ?? unique();
  const res = await api.post('/users/', {
    username,
    name: `Name ${username}`,
    email: `${username}@example.com`,
    password: 'user-password-1',
    ...body,
  });
  assert.equal(res.status, 201, `create user: ${res.status} ${res.text}`);
  return res.body as CreatedUser;
}

export async function getUser(api: PartnerApi, user: string): Promise<UserRecord> {
  return (await api.get(`/users/${user}`).expect(200)).body as UserRecord;
}

/** Every field a user record carries (CLIENT-FACTS), with its JSON type. */
export function assertUserRecord(u: Record<string, unknown>): void {
  const intFields = [
    'avatar_id',
    'creation_time',
    'bytes_stored',
    'storage_bytes',
    'bonus_bytes',
    'plan_id',
    'num_devices',
  ];
  for (const f of intFields) assert.ok(Number.isInteger(u[f]), `${f} must be an int: ${JSON.stringify(u[f])}`);
  for (const f of ['username', 'name', 'email', 'share_id', 'share_identifier']) assert.equal(typeof u[f], 'string', f);
  for (const f of ['enabled', 'purgehold_active']) assert.equal(typeof u[f], 'boolean', f);
  assert.ok(u.promo === null || typeof u.promo === 'string', 'promo');
  assert.ok(u.last_login === null || Number.isInteger(u.last_login), 'last_login');
  assert.ok(u.group_id === null || Number.isInteger(u.group_id), 'group_id');
  assert.ok(Array.isArray(u.share_rooms), 'share_rooms');
  for (const f of [
    'avatar_id',
    'username',
    'name',
    'email',
    'share_id',
    'share_identifier',
    'promo',
    'creation_time',
    'last_login',
    'bytes_stored',
    'storage_bytes',
    'bonus_bytes',
    'plan_id',
    'group_id',
    'enabled',
    'purgehold_active',
    'share_rooms',
    'num_devices',
  ]) {
    assert.ok(f in u, `user record lacks ${f}`);
  }
}

/** storage_bytes as clients expect it: plan + bonus, the unlimited value for an unlimited plan. */
export const expectedStorageBytes = (plan: Plan, bonus: number) =>
  plan.storage_bytes >= UNLIMITED_BYTES ? UNLIMITED_BYTES : plan.storage_bytes + bonus;

// ---- storage-catalog events -------------------------------------------------------------------

export interface UserIds {
  userId: string;
  partnerId: string;
}

/**
 * Appends what the storage catalog writes (devices, file versions, logins, share rooms) to the
 * target's event store. Open it for a test, close it after.
 */
export class StorageEvents {
  private constructor(private readonly store: EventStore) {}

  static async open(target: TestTarget): Promise<StorageEvents> {
    return new StorageEvents(await target.openEventStore());
  }

  /** The internal ids of a user, from the UserCreated event on its `user-<id>` stream. */
  async idsOf(username: string): Promise<UserIds> {
    let found: UserIds | undefined;
    await new Promise<void>((resolve, reject) => {
      const sub = this.store.subscribeToAll(
        { fromPosition: 0, prefixes: ['user-'] },
        {
          onEvent: (e) => {
            if (e.type === 'UserCreated' && e.data.username === username)
              found = { userId: String(e.data.userId), partnerId: String(e.data.partnerId) };
          },
          onCheckpoint: () => {
            resolve();
            // not from inside the subscription's own loop (and `sub` may not be assigned yet)
            setImmediate(() => void sub.stop());
          },
          onError: reject,
        },
      );
    });
    assert.ok(found, `no UserCreated event for ${username}`);
    return found;
  }

  private readonly owners = new Map<string, UserIds>();

  private async appendTo(stream: string, events: (DeviceEvent | FileEvent | ShareEvent)[]): Promise<void> {
    const [last] = await this.store.readStream(stream, { direction: 'backwards', maxCount: 1 });
    await this.store.append(
      stream,
      events.map((e) => ({ type: e.type, data: e.data as Record<string, unknown> })),
      last ? last.revision : 'no_stream',
    );
  }

  async registerDevice(
    ids: UserIds,
    device: { name: string; sysplatform?: string; client_revision?: number; at?: number },
  ): Promise<string> {
    const deviceId = randomUUID();
    await this.appendTo(Streams.device(deviceId), [
      {
        type: 'DeviceRegistered',
        data: {
          deviceId,
          userId: ids.userId,
          partnerId: ids.partnerId,
          name: device.name,
          sysplatform: device.sysplatform ?? 'linux',
          client_revision: device.client_revision ?? 100,
          at: device.at ?? now(),
        },
      },
    ]);
    this.owners.set(deviceId, ids);
    return deviceId;
  }

  async commitFile(deviceId: string, path: string, size: number, at = now()): Promise<void> {
    const fileId = fileIdOf(deviceId, path);
    const [last] = await this.store.readStream(Streams.file(fileId), { direction: 'backwards', maxCount: 1 });
    const owner = this.owners.get(deviceId)!;
    await this.appendTo(Streams.file(fileId), [
      {
        type: 'FileVersionCommitted',
        data: {
          fileId,
          deviceId,
          ...owner,
          path,
          version: last ? last.revision + 1 : 0,
          size,
          blob: randomUUID().replaceAll('-', ''),
          crc32: 0,
          mtime: at,
          ctime: at,
          at,
        },
      },
    ]);
  }

  async deviceLogin(deviceId: string, at: number, client_revision?: number): Promise<void> {
    await this.appendTo(Streams.device(deviceId), [
      { type: 'DeviceLoggedIn', data: client_revision === undefined ? { at } : { at, client_revision } },
    ]);
  }

  async backupCompleted(deviceId: string, at: number): Promise<void> {
    await this.appendTo(Streams.device(deviceId), [{ type: 'BackupCompleted', data: { at } }]);
  }

  async purgeVersions(deviceId: string, path: string, bytes: number, at = now()): Promise<void> {
    await this.appendTo(Streams.file(fileIdOf(deviceId, path)), [
      {
        type: 'FileVersionsPurged',
        data: { deviceId, ...this.owners.get(deviceId)!, path, versions: [0], blobs: [], bytes, at },
      },
    ]);
  }

  async removeDevice(deviceId: string, at = now()): Promise<void> {
    await this.appendTo(Streams.device(deviceId), [{ type: 'DeviceRemoved', data: { at } }]);
  }

  async updateShare(
    ids: UserIds,
    room: { room_key: string; name?: string; description?: string; at: number },
  ): Promise<void> {
    await this.appendTo(Streams.share(ids.userId), [{ type: 'ShareRoomUpdated', data: room }]);
  }

  async deleteShare(ids: UserIds, room_key: string, at = now()): Promise<void> {
    await this.appendTo(Streams.share(ids.userId), [{ type: 'ShareRoomDeleted', data: { room_key, at } }]);
  }

  async createShare(
    ids: UserIds,
    room: { room_key: string; name: string; description?: string; at?: number },
  ): Promise<void> {
    await this.appendTo(Streams.share(ids.userId), [
      {
        type: 'ShareRoomCreated',
        data: {
          room_key: room.room_key,
          name: room.name,
          description: room.description ?? '',
          dirs: ['laptop/Documents/'],
          userId: ids.userId,
          partnerId: ids.partnerId,
          at: room.at ?? now(),
        },
      },
    ]);
  }

  async close(): Promise<void> {
    await this.store.close();
  }
}
