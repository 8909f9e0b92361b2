/**
 * Closes the hours of device backup activity once they are over: for each device hour the feed has
 * counted and that ended more than a grace period ago, it appends the marker
 * `BackupActivityHourClosed` to the stream of that device and hour with expected revision "no
 * stream", so however many replicas run this, each hour is closed once. The feed projection then
 * turns what it counted into one `device.backup_activity` entry; the marker being in the log keeps
 * the feed a function of the log (a rebuild summarises the same hours with the same counts).
 */
import { type BackupActivityHourClosed, Streams } from '@burrow/contracts';
import { WrongExpectedRevisionError } from '@burrow/event-store';
import { appendEvents } from '@burrow/eventsourcing';
import type { AccountsContext } from '../context.js';
import { activityBuckets, HOUR_MS } from './feed.projection.js';

/** Hours closed per run at most (a backlog is worked off run after run). */
const BATCH = 500;

export async function closeActivityHours(
  ctx: Pick<AccountsContext, 'store' | 'docs' | 'runner' | 'clock'>,
  graceMs: number,
): Promise<number> {
  await ctx.runner.catchUp();
  const nowMs = ctx.clock.now() * 1000;
  const due = await activityBuckets(ctx.docs).find(
    { hour: { $lte: nowMs - HOUR_MS - graceMs } },
    { sort: { hour: 1 }, limit: BATCH },
  );
  let closed = 0;
  for (const bucket of due) {
    const marker: BackupActivityHourClosed = {
      type: 'BackupActivityHourClosed',
      data: { deviceId: bucket.deviceId, hour: bucket.hour, at: ctx.clock.now() },
    };
    try {
      const { position } = await appendEvents(
        ctx.store,
        Streams.backupActivity(bucket.deviceId, bucket.hour),
        [marker],
        'no_stream',
      );
      await ctx.runner.waitFor(position);
      closed += 1;
    } catch (error) {
      // another replica closed it first
      if (!(error instanceof WrongExpectedRevisionError)) throw error;
    }
  }
  return closed;
}
