/**
 * Feeds a service's projections from one catch-up subscription to the event store and tracks how
 * far they have got, so a command handler can wait until its own write is visible
 * (read-your-writes: `waitFor(position)`).
 *
 * Each projection keeps its own checkpoint in the `_checkpoints` collection and skips events at or
 * below it, so restarting against a durable document store neither misses nor re-applies events.
 */
import { serviceUnavailable } from '@burrow/contracts';
import type { DocumentStore } from '@burrow/documents';
import type { EventStore, RecordedEvent, Subscription } from '@burrow/event-store';

export interface Projection {
  name: string;
  /** stream-name prefixes this projection reads */
  prefixes: string[];
  /** Called once before the first event; create indexes here. */
  init?(): Promise<void>;
  apply(event: RecordedEvent): Promise<void>;
}

interface Checkpoint {
  _id: string;
  position: number;
  [key: string]: unknown;
}

export interface ProjectionRunnerOptions {
  log?: (level: 'info' | 'error', msg: string, extra?: object) => void;
}

export class ProjectionRunner {
  private subscription: Subscription | null = null;
  private position = 0;
  private readonly checkpoints = new Map<string, number>();
  private readonly waiters: { position: number; resolve: () => void }[] = [];
  private failure: Error | null = null;

  constructor(
    private readonly store: EventStore,
    private readonly documents: DocumentStore,
    private readonly projections: Projection[],
    private readonly options: ProjectionRunnerOptions = {},
  ) {}

  get currentPosition(): number {
    return this.position;
  }

  async start(): Promise<void> {
    const checkpoints = this.documents.collection<Checkpoint>('_checkpoints');
    for (const p of this.projections) {
      await p.init?.();
      this.checkpoints.set(p.name, (await checkpoints.get(p.name))?.position ?? 0);
    }
    const from = Math.min(...[...this.checkpoints.values()], Number.MAX_SAFE_INTEGER);
    this.position = from === Number.MAX_SAFE_INTEGER ? 0 : from;
    const prefixes = this.projections.some((p) => p.prefixes.length === 0)
      ? []
      : [...new Set(this.projections.flatMap((p) => p.prefixes))];
    const head = await this.store.headPosition();
    this.subscription = this.store.subscribeToAll(
      { fromPosition: this.position, prefixes },
      {
        onEvent: (event) => this.apply(event, checkpoints),
        onCheckpoint: (position) => this.advance(position),
        onError: (error) => {
          this.failure = error;
          this.options.log?.('error', 'projection subscription failed', { error: error.message });
          for (const w of this.waiters.splice(0)) w.resolve();
        },
      },
    );
    await this.waitFor(head, 60_000);
  }

  private async apply(event: RecordedEvent, checkpoints: ReturnType<DocumentStore['collection']>): Promise<void> {
    for (const p of this.projections) {
      if ((this.checkpoints.get(p.name) ?? 0) >= event.position) continue;
      if (p.prefixes.length && !p.prefixes.some((prefix) => event.stream.startsWith(prefix))) continue;
      try {
        await p.apply(event);
      } catch (error) {
        // A projection bug must not stall every read model: log it and move on.
        this.options.log?.('error', 'projection failed on event', {
          projection: p.name,
          stream: event.stream,
          type: event.type,
          error: (error as Error).message,
        });
      }
      this.checkpoints.set(p.name, event.position);
      await checkpoints.upsert({ _id: p.name, position: event.position });
    }
    this.advance(event.position);
  }

  private advance(position: number): void {
    if (position <= this.position) return;
    this.position = position;
    for (let i = this.waiters.length - 1; i >= 0; i--) {
      if (this.waiters[i].position <= position) this.waiters.splice(i, 1)[0].resolve();
    }
  }

  /** Resolves once every projection has seen `position`; 503 DomainError after `timeoutMs`. */
  async waitFor(position: number | null, timeoutMs = 10_000): Promise<void> {
    if (position === null || position <= this.position) return;
    if (this.failure) throw serviceUnavailable('read models are not being updated');
    let timer: NodeJS.Timeout | undefined;
    const reached = new Promise<void>((resolve) => this.waiters.push({ position, resolve }));
    const timedOut = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(serviceUnavailable('read models are behind; retry')), timeoutMs);
    });
    try {
      await Promise.race([reached, timedOut]);
    } finally {
      clearTimeout(timer);
    }
  }

  /** Waits until the read models include everything in the store right now. */
  async catchUp(timeoutMs = 10_000): Promise<void> {
    await this.waitFor(await this.store.headPosition(), timeoutMs);
  }

  async stop(): Promise<void> {
    await this.subscription?.stop();
    this.subscription = null;
  }
}
