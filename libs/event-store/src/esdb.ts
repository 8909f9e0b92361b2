/**
 * Production EventStore: KurrentDB (formerly EventStoreDB) over gRPC, with its maintained client
 * `@kurrent/kurrentdb-client` (the successor of `@eventstore/db-client`; docs/decisions.md).
 *
 * Positions: our integer `position` is the event's commit position in the transaction log, as a
 * JS number. Appends through the gRPC API write each event as its own committed prepare record, so
 * every event has a distinct commit position and they grow strictly in `$all` order. A number is
 * exact up to 2^53 bytes (8 PiB) of transaction log, far beyond any store this service will see;
 * `toPosition` refuses larger values rather than silently rounding them. To resume from one of our
 * positions we pass `{ commit: p, prepare: p }`, which is the event's exact log position.
 *
 * The client hangs forever on its first call against a port that accepts connections but never
 * answers, deadlines notwithstanding (STACK-NOTES), so `connect()` and `ping()` race their call
 * against a timer of our own.
 */
import { randomUUID } from 'node:crypto';
// The client (gRPC and its protobufs) is loaded when a store connects, not by every process that
// imports this library: most never use KurrentDB.
import type * as KurrentClient from '@kurrent/kurrentdb-client';
import type {
  AllStreamResolvedEvent,
  AllStreamSubscription,
  AppendStreamState,
  KurrentDBClient,
  Position,
  ResolvedEvent,
} from '@kurrent/kurrentdb-client';
import {
  type AppendResult,
  type EventStore,
  type ExpectedRevision,
  type NewEvent,
  type ReadOptions,
  type RecordedEvent,
  type SubscribeOptions,
  type Subscription,
  type SubscriptionHandlers,
  WrongExpectedRevisionError,
} from './port.js';

/** the client module, once a store has connected */
let kurrent: typeof KurrentClient;

export interface EsdbEventStoreOptions {
  /** How long connect() and ping() wait for the server before failing (default 5000 ms). */
  connectTimeoutMs?: number;
}

/** A checkpoint travelling through the subscription stream, in order with the events. */
interface CheckpointMarker {
  readonly [CHECKPOINT]: number;
}
const CHECKPOINT = Symbol('checkpoint');
const UNKNOWN_POSITION = 2n ** 63n;
/**
 * The store's identity: the first event of this stream, written by the first connection that finds
 * none. Never delivered to subscriptions (it is bookkeeping, not a domain event).
 */
const IDENTITY_STREAM = 'burrow-store-identity';

function toPosition(commit: bigint): number {
  if (commit > BigInt(Number.MAX_SAFE_INTEGER)) {
    throw new Error(`KurrentDB commit position ${commit} exceeds 2^53: cannot be represented as a number`);
  }
  return Number(commit);
}

function toExpected(expected: ExpectedRevision): AppendStreamState {
  switch (expected) {
    case 'any':
      return kurrent.ANY;
    case 'no_stream':
      return kurrent.NO_STREAM;
    case 'stream_exists':
      return kurrent.STREAM_EXISTS;
    default:
      if (!Number.isSafeInteger(expected) || expected < 0) {
        throw new RangeError(`invalid expected revision ${String(expected)}`);
      }
      return BigInt(expected);
  }
}

const isSystem = (stream: string, type: string) => stream.startsWith('$') || type.startsWith('$');

function asObject(value: unknown): Record<string, unknown> {
  if (value && typeof value === 'object' && !Array.isArray(value) && !(value instanceof Uint8Array)) {
    return value as Record<string, unknown>;
  }
  if (value instanceof Uint8Array && value.length > 0) {
    // Written by another client as binary: try JSON, else leave it out.
    try {
      const parsed: unknown = JSON.parse(Buffer.from(value).toString('utf8'));
      if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) return parsed as Record<string, unknown>;
    } catch {
      // not JSON
    }
  }
  return {};
}

function withTimeout<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: no answer within ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

export class EsdbEventStore implements EventStore {
  private readonly subscriptions = new Set<Subscription>();
  private closed = false;

  private constructor(
    private readonly client: KurrentDBClient,
    private readonly timeoutMs: number,
  ) {}

  /** Connects and verifies the server answers (a one-event read of `$all`) within the timeout. */
  static async connect(url: string, options: EsdbEventStoreOptions = {}): Promise<EsdbEventStore> {
    const timeoutMs = options.connectTimeoutMs ?? 5000;
    // The client still accepts esdb:// but warns on the console at every connect: same meaning.
    kurrent ??= await import('@kurrent/kurrentdb-client');
    const client = kurrent.KurrentDBClient.connectionString(url.replace(/^esdb(\+discover)?:/, 'kurrentdb$1:'));
    const store = new EsdbEventStore(client, timeoutMs);
    try {
      await store.ping();
    } catch (error) {
      // A hanging first call keeps the channel open; dispose so the process can exit.
      void client.dispose().catch(() => undefined);
      const reason = error instanceof Error ? error.message : String(error);
      throw new Error(`KurrentDB (EventStoreDB) at ${redact(url)} is not reachable: ${reason}`, { cause: error });
    }
    return store;
  }

  async append(stream: string, events: NewEvent[], expected: ExpectedRevision): Promise<AppendResult> {
    if (events.length === 0) throw new Error('append needs at least one event');
    const data = events.map((e) => kurrent.jsonEvent({ type: e.type, data: e.data, metadata: e.metadata ?? {} }));
    try {
      const result = await this.client.appendToStream(stream, data, { streamState: toExpected(expected) });
      const position = result.position ? toPosition(result.position.commit) : await this.headPosition();
      return { revision: Number(result.nextExpectedRevision), position };
    } catch (error) {
      if (error instanceof kurrent.WrongExpectedVersionError) {
        const actual = error.actualState;
        throw new WrongExpectedRevisionError(
          stream,
          expected,
          typeof actual === 'bigint' ? Number(actual) : 'no_stream',
        );
      }
      throw error;
    }
  }

  async readStream(stream: string, options: ReadOptions = {}): Promise<RecordedEvent[]> {
    const backwards = options.direction === 'backwards';
    if (options.maxCount !== undefined && options.maxCount <= 0) return [];
    const out: RecordedEvent[] = [];
    try {
      const read = this.client.readStream(stream, {
        direction: backwards ? kurrent.BACKWARDS : kurrent.FORWARDS,
        fromRevision:
          options.fromRevision !== undefined ? BigInt(options.fromRevision) : backwards ? kurrent.END : kurrent.START,
        ...(options.maxCount !== undefined ? { maxCount: options.maxCount } : {}),
      });
      for await (const resolved of read) {
        const event = this.toRecorded(resolved);
        if (event) out.push(event);
      }
    } catch (error) {
      if (error instanceof kurrent.StreamNotFoundError) return [];
      throw error;
    }
    return out;
  }

  /** The server offers no cheaper way: the newest event is read. */
  async streamRevision(stream: string): Promise<number | null> {
    const [newest] = await this.readStream(stream, { direction: 'backwards', maxCount: 1 });
    return newest?.revision ?? null;
  }

  async headPosition(): Promise<number> {
    const read = this.client.readAll({ direction: kurrent.BACKWARDS, fromPosition: kurrent.END, maxCount: 1 });
    for await (const resolved of read) {
      const commit = resolved.event?.position.commit ?? resolved.commitPosition;
      if (commit !== undefined) return toPosition(commit);
    }
    return 0;
  }

  private identity: Promise<string> | null = null;
  storeId(): Promise<string> {
    this.identity ??= this.readOrCreateIdentity().catch((error: unknown) => {
      this.identity = null;
      throw error;
    });
    return this.identity;
  }

  private async readOrCreateIdentity(): Promise<string> {
    for (;;) {
      const [first] = await this.readStream(IDENTITY_STREAM, { maxCount: 1 });
      if (first) {
        if (typeof first.data.id === 'string') return first.data.id;
        throw new Error(`${IDENTITY_STREAM}: its first event carries no id`);
      }
      try {
        await this.append(
          IDENTITY_STREAM,
          [{ type: 'StoreIdentityAssigned', data: { id: randomUUID() } }],
          'no_stream',
        );
      } catch (error) {
        if (!(error instanceof WrongExpectedRevisionError)) throw error; // another process named it first
      }
    }
  }

  async ping(): Promise<void> {
    await withTimeout(this.headPosition(), this.timeoutMs, 'KurrentDB ping');
  }

  subscribeToAll(options: SubscribeOptions, handlers: SubscriptionHandlers): Subscription {
    const from = options.fromPosition;
    // Checkpoints arrive through a callback the client awaits inside its Transform, while events it
    // pushed earlier may still sit unread in the stream's buffer. Pushing a marker into the same
    // stream keeps checkpoints in order with the events, so "everything up to p was delivered" holds.
    const checkpointReached = (sub: AllStreamSubscription, position: Position) => {
      sub.push({ [CHECKPOINT]: toPosition(position.commit) } satisfies CheckpointMarker);
    };
    const filter =
      options.prefixes.length > 0
        ? kurrent.streamNameFilter({ prefixes: options.prefixes, checkpointInterval: 1, checkpointReached })
        : kurrent.excludeSystemEvents({ checkpointInterval: 1, checkpointReached });
    const subscription = this.client.subscribeToAll({
      fromPosition: from > 0 ? { commit: BigInt(from), prepare: BigInt(from) } : kurrent.START,
      filter,
    });

    let stopped = false;
    let lastDelivered = from;
    let lastCheckpoint = from;
    const run = async () => {
      for await (const item of subscription as AsyncIterable<AllStreamResolvedEvent | CheckpointMarker>) {
        if (stopped) break;
        if (CHECKPOINT in item) {
          const p = item[CHECKPOINT];
          if (p > lastCheckpoint) {
            lastCheckpoint = p;
            await handlers.onCheckpoint?.(p);
          }
          continue;
        }
        const event = this.toRecorded(item);
        // The server treats the start position as exclusive already; the check makes it explicit.
        if (!event || event.position <= lastDelivered || event.stream === IDENTITY_STREAM) continue;
        if (options.prefixes.length > 0 && !options.prefixes.some((p) => event.stream.startsWith(p))) continue;
        await handlers.onEvent(event);
        lastDelivered = event.position;
      }
    };

    const handle: Subscription = {
      stop: async () => {
        if (stopped) return running;
        stopped = true;
        this.subscriptions.delete(handle);
        await subscription.unsubscribe().catch(() => undefined);
        subscription.destroy();
        await running;
      },
    };
    const running: Promise<void> = run().then(
      () => undefined,
      async (error: unknown) => {
        if (stopped) return; // cancellation noise after stop()
        stopped = true;
        this.subscriptions.delete(handle);
        await subscription.unsubscribe().catch(() => undefined);
        subscription.destroy();
        const err = error instanceof Error ? error : new Error(String(error));
        if (handlers.onError) handlers.onError(err);
        else console.error(JSON.stringify({ level: 'error', msg: 'esdb subscription failed', error: err.message }));
      },
    );
    this.subscriptions.add(handle);
    return handle;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await Promise.all([...this.subscriptions].map((s) => s.stop()));
    await this.client.dispose();
  }

  private toRecorded(resolved: ResolvedEvent | AllStreamResolvedEvent): RecordedEvent | null {
    const e = resolved.event;
    if (!e || isSystem(e.streamId, e.type)) return null;
    const commit = e.position?.commit ?? resolved.commitPosition;
    return {
      stream: e.streamId,
      revision: Number(e.revision),
      // Older servers answer stream reads (served from the index) without the log position: they
      // send no position or 2^64-1. Only then is `position` 0 (unknown).
      position: commit !== undefined && commit < UNKNOWN_POSITION ? toPosition(commit) : 0,
      type: e.type,
      data: asObject(e.data),
      metadata: asObject(e.metadata),
      recordedAt: e.created instanceof Date ? e.created.getTime() : Number(e.created),
    };
  }
}

function redact(url: string): string {
  return url.replace(/\/\/[^@/]*@/, '//***@');
}
