/**
 * The storage catalog as its integration tests drive it: the context `storage-catalog.service.ts`
 * builds (the same projections, the ProcessLog of service 'storage-catalog', recovery of every
 * process kind) on a SQLite event store and a local blob folder in a temp dir and in-memory read
 * models, with a clock the test sets and advances and a fault hook; the handlers are called
 * directly (no Nest, no bus). Opening it again on the same `dir` is a restart: the read models are
 * rebuilt from the store, as in standalone mode.
 *
 * What the accounts service would write (partners and their settings, the plan catalogue, users,
 * purge holds, deletions) is appended to its streams exactly as accounts does; devices, files and
 * folders go through this service's own handlers, with the bytes put into the blob store first as
 * the gateway's ingest does.
 *
 * Not a test file: the tests beside each feature import it. It lives in `testing/`, which no
 * production module may import and the image leaves out (see docs/decisions.md, "Test harnesses").
 */
import { type BlobStore, LocalBlobStore } from '@burrow/blobs';
import {
  type DeviceInfo,
  type FileVersionInfo,
  type PartnerCreated,
  type PartnerSettingsChanged,
  type PlanAdded,
  type ShareRoomCreated,
  type StorageRoot,
  Streams,
  UNLIMITED_BYTES,
  type UserCreated,
  type UserDeleted,
  type UserDisabled,
  type UserEnabled,
  type UserPurgeHoldChanged,
} from '@burrow/contracts';
import { MemoryDocumentStore } from '@burrow/documents';
import { type EventStore, SqliteEventStore } from '@burrow/event-store';
import {
  appendEvents,
  type DomainEvent,
  type FaultHook,
  ledgerHead,
  ProcessLog,
  ProcessRecovery,
  ProjectionRunner,
} from '@burrow/eventsourcing';
import { createLogger } from '@burrow/runtime';
import { TestLeftovers } from '@burrow/testing/leftovers';
import type { RpcClient } from '@burrow/transport';
import { randomUUID } from 'node:crypto';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { crc32 } from 'node:zlib';
import { DevicesHandlers } from '../devices/devices.handlers.js';
import type { DeadPropertyLimits } from '../read-models/dead-property-usage.js';
import { FilesHandlers } from '../files/files.handlers.js';
import { FoldersHandlers } from '../folders/folders.handlers.js';
import { TransfersHandlers } from '../transfers/transfers.handlers.js';
import { Purger } from '../purge/purger.js';
import { SharesHandlers } from '../shares/shares.handlers.js';
import { storageProcesses, storageProjections } from '../storage-catalog.service.js';
import { Previewer, type PreviewerOptions } from '../previews/previewer.js';
import { noPreviews, type StorageContext } from '../shared/context.js';

/** 2026-03-15 12:00 UTC, in unix seconds. */
export const TEST_NOW = Date.UTC(2026, 2, 15, 12) / 1000;
export const DAY = 86_400;
export const GB = 1_000_000_000;

/** The plan catalogue every test context has: a small plan (1 GB) and an unlimited one. */
export const TEST_PLANS = {
  small: { plan_id: 1, storage_bytes: GB },
  unlimited: { plan_id: 2, storage_bytes: UNLIMITED_BYTES },
} as const;

export interface TestClock {
  now(): number;
  set(at: number): void;
  advance(seconds: number): void;
}

export function testClock(start = TEST_NOW): TestClock {
  let at = start;
  return { now: () => at, set: (t) => void (at = t), advance: (s) => void (at += s) };
}

export interface TestStorageOptions {
  /** the files of an earlier context (a restart); default: a new temp dir */
  dir?: string;
  /** default: a new clock at TEST_NOW */
  clock?: TestClock;
  /** passed to the ProcessLog: called at every step boundary of every process */
  faults?: FaultHook;
  /** the purger's page size (small pages exercise paging) */
  purgePageSize?: number;
  /** the blob store (default: a local folder in the temp dir) */
  blobs?: BlobStore;
  /** commits hand their blobs to the previewer (default: previews are not made) */
  previews?: PreviewerOptions | boolean;
  /** what one user's WebDAV dead properties may take (default: the service's defaults) */
  deadProperties?: DeadPropertyLimits;
  /**
   * false: the handlers' store offers no `appendAtomically`, as KurrentDB's adapter does not, so
   * file commits run the CommitFile workflow (default: SQLite's, which does)
   */
  atomicAppends?: boolean;
}

/** The store as an adapter without `appendAtomically` shows it (every other call its own). */
function withoutAtomicAppends(store: EventStore): EventStore {
  return new Proxy(store, {
    get: (target, property) => {
      if (property === 'appendAtomically') return undefined;
      const value = Reflect.get(target, property, target) as unknown;
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
}

/** The purge settings of a partner (accounts' enterprise settings). */
export interface PurgeSettings {
  autopurge_interval?: number | null;
  purgehold_duration?: number;
  versionpurge_interval?: number | null;
}

export interface TestUser {
  userId: string;
  partnerId: string;
  username: string;
}

export interface TestStorage {
  dir: string;
  ctx: StorageContext;
  store: SqliteEventStore;
  docs: MemoryDocumentStore;
  runner: ProjectionRunner;
  processes: ProcessLog;
  blobs: BlobStore;
  clock: TestClock;
  devices: DevicesHandlers;
  files: FilesHandlers;
  folders: FoldersHandlers;
  transfers: TransfersHandlers;
  shares: SharesHandlers;
  purger: Purger;
  /** the previewer as the service runs it (commits reach it only with the `previews` option) */
  previewer: Previewer;
  /** recovery of every storage-catalog process, as the service runs it, with this grace */
  recovery(graceSeconds?: number): ProcessRecovery;

  // ---- what accounts writes
  /** a partner (`PartnerCreated`) with these purge settings (`PartnerSettingsChanged`, if any) */
  createPartner(settings?: PurgeSettings): Promise<string>;
  changeSettings(partnerId: string, settings: PurgeSettings): Promise<void>;
  /** a user of the partner (`UserCreated`; on the unlimited plan unless given) */
  createUser(
    partnerId: string,
    options?: { username?: string; plan_id?: number; purgehold_active?: boolean },
  ): Promise<TestUser>;
  setPurgeHold(user: TestUser, purgehold_active: boolean): Promise<void>;
  /** `UserEnabled` / `UserDisabled` (a partner's `enabled` on the user) */
  setUserEnabled(user: TestUser, enabled: boolean): Promise<void>;
  /** `UserDeleted` (what accounts appends when a partner deletes the user) */
  deleteUser(user: TestUser): Promise<void>;

  // ---- what users do, through the handlers
  registerDevice(user: TestUser, device: string): Promise<DeviceInfo>;
  /** puts `content` into the blob store and commits it as the next version of the file */
  /** `size`: what the commit says the version holds, as if the gateway had measured it (default: the content's) */
  upload(
    user: TestUser,
    device: string,
    path: string,
    content: string | Buffer,
    options?: { size?: number },
  ): Promise<FileVersionInfo>;
  /** a file, or a folder (path ending with `/`) */
  deletePath(user: TestUser, device: string, path: string): Promise<void>;
  removeDevice(user: TestUser, device: string): Promise<void>;
  /** a share room (`ShareRoomCreated`, as the share handlers write it) */
  createShareRoom(user: TestUser, room_key: string, dirs?: string[]): Promise<void>;
  root(user: TestUser): Promise<StorageRoot>;

  /** the user's usage ledger total, read from the store */
  usage(userId: string): Promise<number>;
  /** catches up, then runs the purger once */
  purge(): ReturnType<Purger['run']>;
  /** stops the runner and closes the store; removes the files unless kept (for a restart) */
  close(options?: { keepFiles?: boolean }): Promise<void>;
}

let userCount = 0;
/** what is still open or on disk, for `cleanUpTestStorage` after a test that failed half way */
const leftovers = new TestLeftovers<TestStorage>();

/** accounts.sync: the storage catalog's tests have no accounts service to wait for */
const noAccounts = { call: async () => ({ position: null }), close: async () => undefined } as unknown as RpcClient;

export async function startTestStorage(options: TestStorageOptions = {}): Promise<TestStorage> {
  const dir = options.dir ?? (await mkdtemp(join(tmpdir(), 'burrow-storage-')));
  leftovers.addDir(dir);
  const store = SqliteEventStore.open(join(dir, 'events.sqlite'), { pollIntervalMs: 20 });
  const docs = new MemoryDocumentStore();
  const log = createLogger('storage-catalog', 'silent');
  const runner = new ProjectionRunner(store, docs, storageProjections(), {
    log: (level, msg, extra) => log[level](extra ?? {}, msg),
  });
  await runner.start();
  const clock = options.clock ?? testClock();
  const processes = new ProcessLog(store, 'storage-catalog', {
    now: clock.now,
    faults: options.faults,
    waitFor: (position) => runner.waitFor(position),
  });
  const blobs = options.blobs ?? new LocalBlobStore(join(dir, 'blobs'));
  const ctx: StorageContext = {
    store: options.atomicAppends === false ? withoutAtomicAppends(store) : store,
    docs,
    runner,
    processes,
    blobs,
    rpc: noAccounts,
    clock,
    log,
    previews: noPreviews,
    deadProperties: options.deadProperties,
  };
  const previewer = new Previewer(ctx, typeof options.previews === 'object' ? options.previews : {});
  if (options.previews) ctx.previews = previewer;
  const purger = new Purger(ctx, { pageSize: options.purgePageSize });
  const devices = new DevicesHandlers(ctx);
  const files = new FilesHandlers(ctx);

  const append = async (stream: string, events: DomainEvent[]) => {
    const { position } = await appendEvents(store, stream, events, 'any');
    await runner.waitFor(position);
  };
  if (!(await store.readStream(Streams.planCatalogue, { maxCount: 1 })).length) {
    const plans: PlanAdded[] = [
      { type: 'PlanAdded', data: { ...TEST_PLANS.small, name: '1 GB', promo: false } },
      { type: 'PlanAdded', data: { ...TEST_PLANS.unlimited, name: 'Unlimited', promo: false } },
    ];
    await append(Streams.planCatalogue, plans);
  }
  const settingsChanged = (settings: PurgeSettings): PartnerSettingsChanged => ({
    type: 'PartnerSettingsChanged',
    data: { changes: settings, at: clock.now() },
  });

  const t: TestStorage = {
    dir,
    ctx,
    store,
    docs,
    runner,
    processes,
    blobs,
    clock,
    devices,
    files,
    purger,
    previewer,
    folders: new FoldersHandlers(ctx),
    transfers: new TransfersHandlers(ctx),
    shares: new SharesHandlers(ctx),
    recovery: (graceSeconds = 0) => new ProcessRecovery(processes, docs, storageProcesses(ctx), graceSeconds),

    async createPartner(settings = {}) {
      const partnerId = randomUUID();
      const created: PartnerCreated = {
        type: 'PartnerCreated',
        data: {
          partnerId,
          username: `partner-${partnerId.slice(0, 8)}`,
          company_name: 'Test Ltd',
          brand_identifier: partnerId.slice(0, 8),
          passwordHash: 'scrypt2$not-a-real-hash',
          bytes_available: null,
          features: {
            netkes: false,
            ldap: false,
            group_permissions: false,
            signup_restrictions: false,
            email_as_username: false,
          },
          created_at: clock.now(),
        },
      };
      await append(
        Streams.partner(partnerId),
        Object.keys(settings).length ? [created, settingsChanged(settings)] : [created],
      );
      return partnerId;
    },
    changeSettings: (partnerId, settings) => append(Streams.partner(partnerId), [settingsChanged(settings)]),
    async createUser(partnerId, { username, plan_id = TEST_PLANS.unlimited.plan_id, purgehold_active = false } = {}) {
      userCount += 1;
      const userId = randomUUID();
      const name = username ?? `user${userCount}-${process.pid}`;
      const created: UserCreated = {
        type: 'UserCreated',
        data: {
          userId,
          partnerId,
          username: name,
          name: `User ${userCount}`,
          email: `${name}@example.com`,
          plan_id,
          group_id: null,
          bonus_bytes: 0,
          avatar_id: userCount,
          share_id: name,
          creation_time: clock.now(),
          passwordHash: 'scrypt2$not-a-real-hash',
        },
      };
      const hold: UserPurgeHoldChanged = { type: 'UserPurgeHoldChanged', data: { purgehold_active: true } };
      await append(Streams.user(userId), purgehold_active ? [created, hold] : [created]);
      return { userId, partnerId, username: name };
    },
    setPurgeHold: (user, purgehold_active) =>
      append(Streams.user(user.userId), [
        { type: 'UserPurgeHoldChanged', data: { purgehold_active } } satisfies UserPurgeHoldChanged,
      ]),
    setUserEnabled: (user, enabled) =>
      append(Streams.user(user.userId), [
        enabled
          ? ({ type: 'UserEnabled', data: {} } satisfies UserEnabled)
          : ({ type: 'UserDisabled', data: {} } satisfies UserDisabled),
      ]),
    deleteUser: (user) =>
      append(Streams.user(user.userId), [
        { type: 'UserDeleted', data: { deletedAt: clock.now() } } satisfies UserDeleted,
      ]),

    registerDevice: (user, device) =>
      devices.register({
        userId: user.userId,
        partnerId: user.partnerId,
        device,
        sysplatform: 'linux',
        client_revision: 100,
      }),
    async upload(user, device, path, content, options = {}) {
      const bytes = Buffer.from(content);
      const { key, size } = await blobs.put(Readable.from([bytes]));
      return files.commit({
        userId: user.userId,
        device,
        path,
        blob: key,
        size: options.size ?? size,
        crc32: crc32(bytes) >>> 0,
      });
    },
    async deletePath(user, device, path) {
      await files.delete({ userId: user.userId, device, path });
    },
    async removeDevice(user, device) {
      await devices.remove({ userId: user.userId, device });
    },
    async createShareRoom(user, room_key, dirs = ['laptop/']) {
      const created: ShareRoomCreated = {
        type: 'ShareRoomCreated',
        data: {
          room_key,
          name: `Room ${room_key}`,
          description: '',
          dirs,
          userId: user.userId,
          partnerId: user.partnerId,
          at: clock.now(),
        },
      };
      await append(Streams.share(user.userId), [created]);
    },
    root: (user) => devices.root({ userId: user.userId }),

    usage: async (userId) => (await ledgerHead(store, Streams.usage(userId))).total,
    async purge() {
      await runner.catchUp();
      return purger.run();
    },
    async close({ keepFiles = false } = {}) {
      leftovers.closed(t);
      // not awaited: a crash test leaves a run stopped for ever at its crash point
      void purger.stop();
      await previewer.stop();
      await runner.stop();
      await store.close();
      if (!keepFiles) await leftovers.removeDir(dir);
    },
  };
  leftovers.opened(t);
  return t;
}

/** Closes every context still open and removes every temp dir left (after a failed test). */
export const cleanUpTestStorage = (): Promise<void> => leftovers.cleanUp();

/** What a restart finds: the files of `t`, closed as a killed process leaves them, opened again (same clock unless given). */
export async function restartStorage(
  t: TestStorage,
  options: Omit<TestStorageOptions, 'dir'> = {},
): Promise<TestStorage> {
  await t.close({ keepFiles: true });
  return startTestStorage({ clock: t.clock, blobs: t.blobs, ...options, dir: t.dir });
}

export { expectError } from '@burrow/testing/expect-error';
