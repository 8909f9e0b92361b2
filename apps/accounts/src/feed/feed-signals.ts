/**
 * In-process wake-ups from the feed's projections to whoever waits on them in this process: a
 * long-polling feed read (the SSE stream) waiting for its partner's next entry, and the webhook
 * delivery worker waiting for new work. Each accounts replica has its own; nothing here is state
 * another replica needs (every replica projects the same log).
 */
export class FeedSignals {
  private readonly waiters = new Map<string, Set<() => void>>();
  private readonly workListeners = new Set<() => void>();

  /** Resolves at the partner's next entry, or after `ms` (the caller reads the feed either way). */
  nextEntry(partnerId: string, ms: number): { promise: Promise<void>; cancel(): void } {
    let done: () => void = () => undefined;
    let timer: NodeJS.Timeout | undefined;
    const promise = new Promise<void>((resolve) => {
      done = () => {
        clearTimeout(timer);
        this.waiters.get(partnerId)?.delete(done);
        if (this.waiters.get(partnerId)?.size === 0) this.waiters.delete(partnerId);
        resolve();
      };
      timer = setTimeout(done, ms);
      let set = this.waiters.get(partnerId);
      if (!set) this.waiters.set(partnerId, (set = new Set()));
      set.add(done);
    });
    return { promise, cancel: done };
  }

  entriesAdded(partnerIds: Iterable<string>): void {
    for (const partnerId of partnerIds) for (const wake of [...(this.waiters.get(partnerId) ?? [])]) wake();
  }

  /** Deliveries became due (new ones, or redeliveries): the worker looks at once. */
  onWork(listener: () => void): () => void {
    this.workListeners.add(listener);
    return () => this.workListeners.delete(listener);
  }

  workAdded(): void {
    for (const listener of this.workListeners) listener();
  }
}
