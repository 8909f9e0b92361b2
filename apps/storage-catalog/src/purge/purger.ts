/**
 * The purger: one run clears what deleted users left, then purges, partner by partner under the
 * partner's rules (`purge-rules.ts`):
 * 1. deleted users still holding devices or share rooms: removed (`clear-user.ts`);
 * 2. removed devices still holding versions: every version of every file, whatever autopurge says;
 * 3. deleted files (`autopurge_interval` days after their deletion): every version;
 * 4. old versions of live files (`versionpurge_interval` days after a newer one replaced them).
 * Nothing of a partner is purged while one of its deletions is within `purgehold_duration`
 * seconds, and nothing of a user with `purgehold_active`. Each file's purge is a multi-step write
 * (`purge-file.process.ts`). Candidates come from the read models a page at a time, after a
 * cursor, so a run never loads an unbounded set; what is decided is re-checked against the file's
 * stream, so stale read models cannot purge a file that came back to life.
 *
 * Runs periodically (`BURROW_PURGE_INTERVAL_MS`) and on demand (`storage-catalog.purge.run`);
 * runs of one process are serialised, and runs on several replicas at once are harmless (every
 * write re-reads and appends with an expected revision).
 */
import type { PurgeReport } from '@burrow/contracts';
import { type DeviceDoc, devicesCollection } from '../read-models/devices.projection.js';
import {
  type FileDoc,
  filesCollection,
  type VersionDoc,
  versionsCollection,
} from '../read-models/catalog.documents.js';
import type { FileState } from '../files/file.js';
import type { StorageContext } from '../shared/context.js';
import { storageUsersCollection } from '../users/users.projection.js';
import { clearDeletedUser } from './clear-user.js';
import { purgePoliciesCollection, type PurgePolicyDoc, purgePolicyOf } from './purge-policies.projection.js';
import { allStored, purgeFile } from './purge-file.process.js';
import { autopurgeCutoff, partnerOnHold, versionpurgeCutoff } from './purge-rules.js';
import { userStorageCollection, type UserStorageDoc } from './user-storage.projection.js';
import { SerialRuns } from '../shared/serial-runs.js';

export const PURGE_PAGE = 500;
/** failures listed in one report (the rest are counted in the log only) */
const FAILURES_LISTED = 100;

export interface PurgerOptions {
  /** candidates read per query (tests use small pages to exercise paging) */
  pageSize?: number;
}

const emptyReport = (): PurgeReport => ({
  cleared_users: 0,
  removed_devices: 0,
  deleted_rooms: 0,
  purged_files: 0,
  purged_versions: 0,
  purged_bytes: 0,
  held_partners: 0,
  held_devices: 0,
  held_files: 0,
  failed: [],
});

/** One run's state: the clock reading every rule uses, what was held, the last position written. */
class Run {
  readonly report = emptyReport();
  readonly heldPartners = new Set<string>();
  position: number | null = null;

  constructor(readonly now: number) {}

  wrote(position: number | null): void {
    if (position !== null && (this.position === null || position > this.position)) this.position = position;
  }
}

export class Purger {
  private readonly pageSize: number;
  private readonly runs = new SerialRuns();

  constructor(
    private readonly ctx: StorageContext,
    options: PurgerOptions = {},
  ) {
    this.pageSize = options.pageSize ?? PURGE_PAGE;
  }

  /** Runs once, after any run of this process still going; resolves with what it did. */
  run(): Promise<PurgeReport> {
    return this.runs.run(() => this.runOnce());
  }

  /** Stops between two files; resolves when the run under way has stopped. */
  stop(): Promise<void> {
    return this.runs.stop();
  }

  private async runOnce(): Promise<PurgeReport> {
    const run = new Run(this.ctx.clock.now());
    await this.ctx.runner.catchUp();
    await this.clearDeletedUsers(run);
    await this.ctx.runner.catchUp();
    await this.purgeRemovedDevices(run);
    await this.ctx.runner.catchUp();
    await this.autopurge(run);
    await this.ctx.runner.catchUp();
    await this.versionpurge(run);
    // what the run did is visible in this replica's read models when it answers
    await this.ctx.runner.waitFor(run.position);
    run.report.held_partners = run.heldPartners.size;
    return run.report;
  }

  /** Pages through `find(after)` (each page starts after the last document of the one before). */
  private async pages<T>(
    find: (after: T | null, limit: number) => Promise<T[]>,
    visit: (page: T[]) => Promise<void>,
  ): Promise<void> {
    let after: T | null = null;
    for (;;) {
      if (this.runs.stopped) return;
      const page = await find(after, this.pageSize);
      await visit(page);
      if (page.length < this.pageSize) return;
      after = page[page.length - 1];
    }
  }

  private async clearDeletedUsers(run: Run): Promise<void> {
    const users = userStorageCollection(this.ctx.docs);
    await this.pages<UserStorageDoc>(
      (after, limit) =>
        users.find(after ? { pending: true, _id: { $gt: after._id } } : { pending: true }, { sort: { _id: 1 }, limit }),
      async (page) => {
        for (const user of page) {
          if (this.runs.stopped) return;
          const cleared = await clearDeletedUser(this.ctx, user);
          run.wrote(cleared.position);
          if (cleared.removedDevices || cleared.deletedRooms) run.report.cleared_users += 1;
          run.report.removed_devices += cleared.removedDevices;
          run.report.deleted_rooms += cleared.deletedRooms;
        }
      },
    );
  }

  /** Whether the partner's purges wait (counted once per run). */
  private partnerHeld(run: Run, policy: PurgePolicyDoc): boolean {
    if (!partnerOnHold(policy, run.now)) return false;
    run.heldPartners.add(policy._id);
    return true;
  }

  /** A user on purge hold; a deleted user is on hold no more. */
  private async userHeld(userId: string): Promise<boolean> {
    return (await storageUsersCollection(this.ctx.docs).get(userId))?.purgehold_active === true;
  }

  private async purge(run: Run, fileId: string, choose: (state: FileState) => number[]): Promise<void> {
    try {
      const purged = await purgeFile(this.ctx, fileId, choose);
      if (!purged) return;
      run.wrote(purged.position);
      run.report.purged_files += 1;
      run.report.purged_versions += purged.versions;
      run.report.purged_bytes += purged.bytes;
    } catch (error) {
      if (run.report.failed.length < FAILURES_LISTED)
        run.report.failed.push({ fileId, error: (error as Error).message });
      this.ctx.log.warn(
        { fileId, err: { message: (error as Error).message } },
        'purging a file failed; the next run tries again',
      );
    }
  }

  private async purgeRemovedDevices(run: Run): Promise<void> {
    const devices = devicesCollection(this.ctx.docs);
    const files = filesCollection(this.ctx.docs);
    await this.pages<DeviceDoc>(
      (after, limit) =>
        devices.find(
          after
            ? { removed: true, versions: { $gt: 0 }, _id: { $gt: after._id } }
            : { removed: true, versions: { $gt: 0 } },
          { sort: { _id: 1 }, limit },
        ),
      async (page) => {
        for (const device of page) {
          if (this.runs.stopped) return;
          if (this.partnerHeld(run, await purgePolicyOf(this.ctx.docs, device.partnerId))) continue;
          if (await this.userHeld(device.userId)) {
            run.report.held_devices += 1;
            continue;
          }
          // the device is removed for good: whatever its files hold now goes
          await this.pages<FileDoc>(
            (after, limit) =>
              files.find(after ? { deviceId: device._id, path: { $gt: after.path } } : { deviceId: device._id }, {
                sort: { path: 1 },
                limit,
              }),
            async (filePage) => {
              for (const file of filePage) if (!this.runs.stopped) await this.purge(run, file._id, allStored);
            },
          );
        }
      },
    );
  }

  /** Partners with `field` set (> 0), a page at a time. */
  private async eachPartnerWith(
    field: 'autopurge_interval' | 'versionpurge_interval',
    visit: (policy: PurgePolicyDoc) => Promise<void>,
  ): Promise<void> {
    const policies = purgePoliciesCollection(this.ctx.docs);
    await this.pages<PurgePolicyDoc>(
      (after, limit) =>
        policies.find(after ? { [field]: { $gt: 0 }, _id: { $gt: after._id } } : { [field]: { $gt: 0 } }, {
          sort: { _id: 1 },
          limit,
        }),
      async (page) => {
        for (const policy of page) if (!this.runs.stopped) await visit(policy);
      },
    );
  }

  private async autopurge(run: Run): Promise<void> {
    const files = filesCollection(this.ctx.docs);
    await this.eachPartnerWith('autopurge_interval', async (policy) => {
      const cutoff = autopurgeCutoff(policy, run.now);
      if (cutoff === null || this.partnerHeld(run, policy)) return;
      const due = { partnerId: policy._id, deleted: true, deleted_at: { $lte: cutoff } };
      await this.pages<FileDoc>(
        (after, limit) =>
          files.find(
            after
              ? {
                  $and: [
                    due,
                    {
                      $or: [
                        { deleted_at: { $gt: after.deleted_at } },
                        { deleted_at: after.deleted_at, _id: { $gt: after._id } },
                      ],
                    },
                  ],
                }
              : due,
            { sort: { deleted_at: 1, _id: 1 }, limit },
          ),
        async (page) => {
          for (const file of page) {
            if (this.runs.stopped) return;
            if (await this.userHeld(file.userId)) {
              run.report.held_files += 1;
              continue;
            }
            // the read model saw the file deleted at its latest version; a version committed since
            // (the file is back) shows in the stream as a later one, and the file is left alone
            await this.purge(run, file._id, (state) =>
              state.nextVersion - 1 === file.version ? allStored(state) : [],
            );
          }
        },
      );
    });
  }

  private async versionpurge(run: Run): Promise<void> {
    const versions = versionsCollection(this.ctx.docs);
    const files = filesCollection(this.ctx.docs);
    await this.eachPartnerWith('versionpurge_interval', async (policy) => {
      const cutoff = versionpurgeCutoff(policy, run.now);
      if (cutoff === null || this.partnerHeld(run, policy)) return;
      const due = { partnerId: policy._id, latest: false, superseded_at: { $lte: cutoff } };
      await this.pages<VersionDoc>(
        (after, limit) =>
          versions.find(
            after
              ? {
                  $and: [
                    due,
                    {
                      $or: [
                        { superseded_at: { $gt: after.superseded_at } },
                        { superseded_at: after.superseded_at, _id: { $gt: after._id } },
                      ],
                    },
                  ],
                }
              : due,
            { sort: { superseded_at: 1, _id: 1 }, limit },
          ),
        async (page) => {
          const byFile = new Map<string, number[]>();
          for (const v of page) byFile.set(v.fileId, [...(byFile.get(v.fileId) ?? []), v.version]);
          for (const [fileId, numbers] of byFile) {
            if (this.runs.stopped) return;
            const file = await files.get(fileId);
            // deleted files are autopurge's (or their device's) to purge, whole
            if (!file || file.deleted) continue;
            if (await this.userHeld(file.userId)) {
              run.report.held_files += 1;
              continue;
            }
            await this.purge(run, fileId, (state) => {
              const latest = Math.max(...state.stored.keys());
              return numbers.filter((n) => n !== latest);
            });
          }
        },
      );
    });
  }
}
