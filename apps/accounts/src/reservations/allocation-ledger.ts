/**
 * The partner's storage allocation ledger (`allocation-<partnerId>`): every change to a user's
 * allocated bytes (plan bytes + bonus) appends its delta and the new running total with optimistic
 * concurrency. This makes "allocation never exceeds bytes_available" hold under concurrent
 * requests, which a check against a read model cannot guarantee.
 */
import { paymentRequired, serviceUnavailable, Streams } from '@burrow/contracts';
import { type EventStore, WrongExpectedRevisionError } from '@burrow/event-store';

export interface AllocationOptions {
  /** null = unlimited */
  bytesAvailable: number | null;
  /** skip the 402 check (the caller already checked, or the change frees space) */
  enforce: boolean;
  reason: string;
  /** the 402 reason ("payment required" on create, "quota exceeded" on edit) */
  refusal?: string;
}

export async function allocatedBytes(store: EventStore, partnerId: string): Promise<number> {
  const [last] = await store.readStream(Streams.allocation(partnerId), { direction: 'backwards', maxCount: 1 });
  return (last?.data.total as number | undefined) ?? 0;
}

export async function allocate(store: EventStore, partnerId: string, delta: number, options: AllocationOptions): Promise<void> {
  if (delta === 0) return;
  const stream = Streams.allocation(partnerId);
  for (let attempt = 1; attempt <= 50; attempt++) {
    const [last] = await store.readStream(stream, { direction: 'backwards', maxCount: 1 });
    const total = (last?.data.total as number | undefined) ?? 0;
    if (options.enforce && delta > 0 && options.bytesAvailable !== null && total + delta > options.bytesAvailable) {
      throw paymentRequired(options.refusal ?? 'payment required: allocation would exceed the bytes available to the enterprise');
    }
    try {
      await store.append(
        stream,
        [{ type: 'BytesAllocated', data: { delta, total: total + delta, reason: options.reason } }],
        last ? last.revision : 'no_stream',
      );
      return;
    } catch (error) {
      if (!(error instanceof WrongExpectedRevisionError)) throw error;
      await new Promise((r) => setTimeout(r, Math.random() * Math.min(20, attempt)));
    }
  }
  throw serviceUnavailable('too much contention on the allocation ledger; retry');
}
