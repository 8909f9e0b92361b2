/**
 * Committing a file version spans two streams: the user's usage ledger (the quota, exact under
 * concurrency) and the file's stream. The usage entry is taken first (507 if the quota is full),
 * then `FileVersionCommitted` is appended expecting the revision the version number was decided on
 * (the commit point). A lost race on the file stream undoes the usage entry and retries; a crash
 * is settled by recovery, which claims the file stream at that revision so the commit can no
 * longer land, then undoes the usage entry. Only the commit point waits for the disk (fsync): it
 * makes the process's start and the usage entry before it durable too, and the end record after
 * it becomes durable with the next durable append (a power loss before that: recovery completes
 * the process again).
 *
 * Where the event store appends to several streams in one transaction (SQLite, PostgreSQL:
 * `appendAtomically`), the commit is that one append instead (`atomicCommitWrites`, issue 37): the
 * usage entry and the version, all or nothing, one transaction and one fsync, no process to record
 * or recover. The workflow stays for KurrentDB, whose Node client cannot.
 */
import { randomUUID } from 'node:crypto';
import {
  type DeadProperties,
  type FileChecksums,
  type FileCommitAbandoned,
  fileIdOf,
  type FileVersionData,
  Streams,
  quotaExceeded,
  withChecksums,
} from '@burrow/contracts';
import type { StreamWrite } from '@burrow/event-store';
import {
  appendEvents,
  claimRevision,
  defineWorkflow,
  type DomainEvent,
  type LedgerHead,
  ledgerEntry,
  loadAggregate,
  retryOnConflict,
  stampEvents,
} from '@burrow/eventsourcing';
import type { DeviceState } from '../devices/device.js';
import { SNIFF_BYTES, sniffImage } from '../previews/image-format.js';
import type { StorageContext } from '../shared/context.js';
import { ensureUsage, undoUsage, usageHead } from '../usage/usage.js';
import { fileDecider } from './file.js';

export interface CommitFileProcess {
  fileId: string;
  userId: string;
  /** the file stream's revision the version was decided on (null: a new file) */
  revision: number | null;
  /** the usage ledger's revision before the write */
  usageFrom: number | null;
}

/** What only the request has: the events it decided, and what the usage entry needs. */
export interface CommitFileInput {
  events: DomainEvent[];
  path: string;
  size: number;
  /** the user's quota (null: unlimited) */
  quota: number | null;
  /** the usage ledger's head read just before the write (`usageFrom` is its revision): the entry is appended on it without a second read */
  usage?: LedgerHead;
}

export const commitFileProcess = (ctx: StorageContext) =>
  defineWorkflow<CommitFileProcess, CommitFileInput>({
    kind: 'CommitFile',
    // one fsync per commit: the start and the usage entry wait for the commit point's durable
    // append, the end for the next one (issue 23: each of four appends used to pay its own)
    deferDurability: true,
    deferEnd: true,
    steps: [
      {
        name: 'reserve-usage',
        run: ({ id, data, input, store }) =>
          ensureUsage(store, data.userId, {
            delta: input.size,
            ref: id,
            reason: `commit ${input.path}`,
            after: data.usageFrom,
            limit: input.quota,
            head: input.usage,
          }),
        undo: (data, processId) => undoUsage(ctx.store, data.userId, processId, data.usageFrom),
      },
    ],
    // durable: the log's store, not the step's deferred one
    async commit({ id, data, input }) {
      return (
        await appendEvents(ctx.store, Streams.file(data.fileId), input.events, data.revision ?? 'no_stream', {
          processId: id,
        })
      ).position;
    },
    settle(data, processId) {
      const marker: FileCommitAbandoned = { type: 'FileCommitAbandoned', data: { processId, at: ctx.clock.now() } };
      return claimRevision(ctx.store, Streams.file(data.fileId), data.revision, processId, marker);
    },
  });

/**
 * The commit as one append over both streams, for a store that can (`appendAtomically`: SQLite,
 * PostgreSQL): the usage entry on the head just read (refused past the quota) and the version on
 * the file's revision, all or nothing. No process to record, settle or complete: a crash leaves
 * both or neither. Either stream moved since it was read: WrongExpectedRevisionError, and the
 * caller reads both again (the quota is checked on the head the entry is appended on: exact).
 */
function atomicCommitWrites(w: {
  userId: string;
  stream: string;
  revision: number | null;
  events: DomainEvent[];
  usage: LedgerHead;
  path: string;
  size: number;
  quota: number | null;
}): StreamWrite[] {
  const version: StreamWrite = { stream: w.stream, events: stampEvents(w.events), expected: w.revision ?? 'no_stream' };
  if (w.size === 0) return [version];
  const entry = ledgerEntry(w.usage, {
    delta: w.size,
    ref: `commit:${randomUUID()}`,
    reason: `commit ${w.path}`,
    limit: w.quota,
    refusal: () => quotaExceeded(),
  });
  const usage: StreamWrite = {
    stream: Streams.usage(w.userId),
    events: stampEvents([entry]),
    expected: w.usage.revision ?? 'no_stream',
  };
  return [usage, version];
}

/** What a new version is made of: bytes already in the blob store (an upload, or a COPY's source). */
export interface NewVersion {
  size: number;
  blob: string;
  crc32: number;
  /** SHA-1 and MD5 of the bytes (absent: a copy of a version that has none) */
  checksums?: FileChecksums;
  mtime?: number;
  ctime?: number;
  /** replaces the file's dead properties in the same append (a COPY carries the source's) */
  props?: DeadProperties;
  /** the blob's first bytes, when the uploader saw them (the previewer then need not read them back) */
  head?: Buffer;
}

/**
 * Commits `content` as the next version of `path` on `device` (a CommitFile write: the usage
 * ledger, then the file's stream, retried on a lost race). `quota` null: unlimited. Replies once
 * the read models show it, with about how many bytes the user then stores (`used`).
 *
 * `hint.absent`: the read models hold no such file, so the first attempt takes the stream to be
 * new without reading it (a backup's files are mostly new: that read was ~3% of an upload's main
 * thread, issue 37). Only a hint: the append still expects no stream, and if there is one (the
 * read models were behind, or kept nothing of a purged file) it fails and the retry reads it.
 */
export async function commitVersion(
  ctx: StorageContext,
  device: DeviceState,
  path: string,
  content: NewVersion,
  quota: number | null,
  hint: { absent?: boolean } = {},
): Promise<{ data: Omit<FileVersionData, 'version'>; version: number; position: number | null; used: number }> {
  const fileId = fileIdOf(device.deviceId, path);
  const stream = Streams.file(fileId);
  const now = ctx.clock.now();
  // the head says "not an image" only if it holds what the sniff looks at (the commit checked its length)
  const head = content.head && content.head.length >= Math.min(content.size, SNIFF_BYTES) ? content.head : undefined;
  // no image: the commit itself decides the blob's previews (none), no previewer round (issue 37)
  const noImage = head !== undefined && sniffImage(head) === null;
  const data = {
    fileId,
    deviceId: device.deviceId,
    userId: device.userId,
    partnerId: device.partnerId,
    path,
    size: content.size,
    blob: content.blob,
    crc32: content.crc32,
    ...withChecksums(content),
    mtime: content.mtime ?? now,
    ctime: content.ctime ?? content.mtime ?? now,
    at: now,
    ...(noImage ? { image: false as const } : {}),
  };
  // the workflow (stores without appendAtomically) starts its process on the revision it read: no hint
  let takeAsNew = hint.absent === true && ctx.store.appendAtomically !== undefined;
  const committed = await retryOnConflict('file', async () => {
    const { state, revision } = takeAsNew
      ? { state: fileDecider.initialState, revision: null }
      : await loadAggregate(ctx.store, stream, fileDecider);
    takeAsNew = false;
    const events = fileDecider.decide({ type: 'CommitVersion', data, props: content.props }, state);
    const usage = await usageHead(ctx.store, device.userId);
    const version = (events[0].data as { version: number }).version;
    if (ctx.store.appendAtomically) {
      const writes = atomicCommitWrites({
        userId: device.userId,
        stream,
        revision,
        events,
        usage,
        path,
        size: content.size,
        quota,
      });
      const results = await ctx.store.appendAtomically(writes);
      const position = results[results.length - 1].position;
      await ctx.runner.waitFor(position);
      return { version, position, used: usage.total + content.size };
    }
    const { position } = await ctx.processes.run(
      commitFileProcess(ctx),
      { fileId, userId: device.userId, revision, usageFrom: usage.revision },
      { events, path, size: content.size, quota, usage },
    );
    // the ledger's total with this entry (about: a head that moved meanwhile was read again by the entry)
    return { version, position, used: usage.total + content.size };
  });
  if (!noImage) ctx.previews.committed(content.blob, head);
  return { data, ...committed };
}
