/**
 * `verify-blobs`: the whole blob store read and checked against the keys, a page at a time
 * (`storage-catalog.blobs.verify`), with its progress on stderr and a JSON summary: how much was
 * read and how fast (GB per minute), the corrupt blobs (quarantined by the storage catalog: the
 * next upload of their content stores them anew) and the missing ones, each with the files and
 * users they hurt. Blob keys are sha256 hashes, evenly spread: how far the walk is through the key
 * space is how far it is through the store, without counting the store first.
 */
import { type BlobProblem, Subjects, type VerifyBlobsPage } from '@burrow/contracts';
import type { RpcClient } from '@burrow/transport';
import { showProgress } from '../progress-display.js';

export interface VerifySummary {
  /** blobs read whole, and their bytes */
  blobs: number;
  bytes: number;
  seconds: number;
  /** the scrub rate on this store: GB (10^9 bytes) read and checked per minute */
  gb_per_minute: number;
  corrupt: BlobProblem[];
  quarantined: number;
  missing: BlobProblem[];
  failed: { blob: string; error: string }[];
}

/** A page reads this much (a blob is always read whole): about a second or two of work. */
export const DEFAULT_PAGE_BYTES = 256 * 1024 * 1024;
/** a page is one call; a single blob of many GB is read within it */
const PAGE_TIMEOUT_MS = 30 * 60_000;
const GB = 1e9;
const MB = 1e6;

/** How far through the key space `key` is, 0..1 (its first 8 hex digits). */
export const keyFraction = (key: string): number => parseInt(key.slice(0, 8), 16) / 0x1_0000_0000;

const describe = (kind: string, p: BlobProblem) =>
  `${kind}: ${p.blob}${p.quarantined ? ' (quarantined)' : ''}: ${p.files_total} file version(s)${p.users.length ? ` of ${p.users.join(', ')}` : ''}${p.files[0] ? `, e.g. ${p.files[0].user}/${p.files[0].device}/${p.files[0].path}` : ''}`;

export async function verifyBlobs(
  rpc: RpcClient,
  pageBytes = DEFAULT_PAGE_BYTES,
  stream: NodeJS.WriteStream = process.stderr,
): Promise<VerifySummary> {
  const started = Date.now();
  const summary: VerifySummary = {
    blobs: 0,
    bytes: 0,
    seconds: 0,
    gb_per_minute: 0,
    corrupt: [],
    quarantined: 0,
    missing: [],
    failed: [],
  };
  let done = 0;
  const rate = () => {
    const seconds = (Date.now() - started) / 1000;
    return seconds > 0 ? (summary.bytes / MB / seconds).toFixed(1) : '0.0';
  };
  const display = showProgress(
    'verify-blobs',
    '{bar} {percentage}% | {blobs} blobs | {gb} GB | {rate} MB/s | {corrupt} corrupt, {missing} missing',
    {
      total: () => 1000,
      value: () => Math.round(done * 1000),
      payload: () => ({
        blobs: summary.blobs,
        gb: (summary.bytes / GB).toFixed(2),
        rate: rate(),
        corrupt: summary.corrupt.length,
        missing: summary.missing.length,
      }),
      line: () =>
        `${(done * 100).toFixed(1)}% of the key space, ${summary.blobs} blobs, ${(summary.bytes / GB).toFixed(2)} GB, ${rate()} MB/s, ${summary.corrupt.length} corrupt, ${summary.missing.length} missing`,
    },
    stream,
  );
  try {
    let after: string | undefined;
    do {
      const page = await rpc.call<VerifyBlobsPage>(
        Subjects.storage.verifyBlobs,
        { ...(after ? { after } : {}), max_bytes: pageBytes },
        { timeoutMs: PAGE_TIMEOUT_MS },
      );
      summary.blobs += page.checked;
      summary.bytes += page.bytes;
      summary.corrupt.push(...page.corrupt);
      summary.missing.push(...page.missing);
      summary.failed.push(...page.failed);
      for (const problem of page.corrupt) display.log(describe('corrupt', problem));
      for (const problem of page.missing) display.log(describe('missing', problem));
      for (const failure of page.failed) display.log(`unreadable: ${failure.blob}: ${failure.error}`);
      after = page.next ?? undefined;
      done = after ? keyFraction(after) : 1;
      display.update();
    } while (after !== undefined);
  } finally {
    display.stop();
  }
  summary.quarantined = summary.corrupt.filter((p) => p.quarantined).length;
  summary.seconds = Math.round((Date.now() - started) / 100) / 10;
  summary.gb_per_minute =
    Math.round((summary.bytes / GB / Math.max((Date.now() - started) / 60_000, 1e-9)) * 100) / 100;
  return summary;
}
