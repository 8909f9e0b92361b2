/** How much the projection runner puts in one batch, and how V8's heap may grow while it catches up. */
import { setFlagsFromString } from 'node:v8';

export const CHECKPOINT_EMPTY_AFTER = 10_000;

/**
 * A batch's documents are also bounded by their size (as JSON, estimated when the unit of work
 * copies them): counts alone let a batch of large documents (files with dead properties, feed
 * entries with long details) hold hundreds of MiB until its commit. 12,500 users' documents make
 * ~6 MiB; 16 MiB of JSON is ~50 MiB of heap.
 */
export const BATCH_BYTES = 16 * 2 ** 20;
export const LIVE_BATCH = { events: 2_000, writes: 5_000 };
/**
 * While catching up (a rebuild, a restart behind the log) into a store that commits in one local
 * transaction: bigger batches. A commit costs per page it writes (each index's pages a batch
 * touches are written once per commit, however many of the batch's documents they hold), so
 * fewer commits write far fewer pages; the price is a longer commit while the service is not
 * ready anyway, and the batch's documents held in memory until then: 20,000 events / 50,000
 * documents peaked at 1.4-1.6 GiB RSS in a 1M-user rebuild (with the committed cache unbounded
 * then), so 5,000 / 12,500 (docs/performance.md, "Rebuilds, 2026-11-26, second pass"). Not for
 * MongoDB, whose commit is not local: a batch is journaled, then written over the network.
 */
export const CATCH_UP_BATCH = { events: 5_000, writes: 12_500 };

/**
 * While a runner of this process catches up, V8's heap may grow to 1.5x what survived its last
 * full collection (`--heap-growing-percent=50`) instead of up to 4x: a rebuild allocates fast and
 * its batches live long enough to reach the old generation, so with V8's own factor the heap of a
 * 1M-user rebuild grew to ~350 MiB of mostly garbage over ~60 MiB live (RSS 508-582 MiB; issue 23:
 * < 512 MiB). Set back to V8's own (0) once no runner catches up: serving is not affected. The
 * flag is read whenever V8 sets its next limit, so changing it at run time takes effect
 * (docs/decisions.md, "Memory during a rebuild is bounded").
 */
const CATCH_UP_HEAP_GROWING_PERCENT = 50;
let runnersCatchingUp = 0;
export function boundHeapGrowth(catchingUp: boolean): void {
  runnersCatchingUp += catchingUp ? 1 : -1;
  if (runnersCatchingUp !== (catchingUp ? 1 : 0)) return;
  try {
    setFlagsFromString(`--heap-growing-percent=${catchingUp ? CATCH_UP_HEAP_GROWING_PERCENT : 0}`);
  } catch {
    // a runtime without the flag: V8's own growth
  }
}
