/**
 * NATS transport for @nestjs/microservices (the distributed mode): connection options, and a
 * watcher that logs every change of a connection's state and feeds the process's BusStatus.
 *
 * Connections reconnect forever. The client library's default gives up after 10 attempts 2 s
 * apart (about 20 s), after which a server stops receiving requests for good and, with nothing
 * else keeping it busy, a process can even exit silently.
 */
import { headers as natsHeaders, type MsgHdrs, type NatsConnection } from '@nats-io/transport-node';
import { ClientNats, type NatsOptions, type ReadPacket, ServerNats, type WritePacket } from '@nestjs/microservices';
import type { BusStatus } from './bus-status.js';
import { type BusSpan, type BusTracing, endWithReply, handleTraced, NO_REPLY, sendTraced } from './bus-tracing.js';
import {
  BusTimeoutError,
  type DirectDispatch,
  type DirectHandlers,
  type DirectRequests,
  isTimeout,
  requestPacket,
} from './direct.js';
import type { TransportLogger } from './transport-logger.js';
import { deserializeReply, JsonTextReplyDeserializer, JsonTextReplySerializer } from './json-text.js';
import { plainSubjectRoute } from './subject-route.js';

/**
 * - `maxReconnectAttempts: -1`: never give up; an outage of any length heals once NATS is back.
 * - a try every 1 to 2 s (1 s wait plus up to 1 s of jitter so replicas do not reconnect in
 *   lockstep): service resumes within about 2 s of NATS returning; one refused TCP connection a
 *   second per process costs nothing while it is down.
 * - a ping every 20 s, 3 unanswered = dead: a half-open connection (the server's host vanished
 *   without closing the socket) is noticed within about a minute instead of 4 (2 min x 2).
 */
export const NATS_RECONNECT_OPTIONS = {
  maxReconnectAttempts: -1,
  reconnectTimeWait: 1000,
  reconnectJitter: 1000,
  pingInterval: 20_000,
  maxPingOut: 3,
} as const;

/**
 * `noAsyncTraces`: the client would otherwise make an Error (a stack trace) for every request, to
 * name the caller if it fails; RpcClient names the subject itself, and the trace cost ~30 µs of CPU
 * per request (bench:bus, issue 38).
 */
export const natsConnectionOptions = (url: string, name: string) => ({
  servers: [url],
  name,
  noAsyncTraces: true,
  ...NATS_RECONNECT_OPTIONS,
});

export interface NatsWatch {
  log?: TransportLogger;
  status?: BusStatus;
  /** The connection closed without being asked to: it will not reconnect (e.g. refused credentials). */
  onLost?: (connection: string, error?: Error) => void;
  now?: () => number;
}

/** While the bus stays down, a reminder this often (each attempt is logged only at debug). */
export const STILL_DOWN_REMINDER_MS = 30_000;

/**
 * Logs each state change of `nc` (lost at warn, restored at info, with how long it was down) and
 * reports it to `watch.status`. `expected()` says whether a close was asked for (a shutdown).
 */
export function watchNatsConnection(nc: NatsConnection, name: string, watch: NatsWatch, expected: () => boolean): void {
  const { log, status } = watch;
  const now = watch.now ?? Date.now;
  const fields = { connection: name };
  let downAt = 0;
  let attempts = 0;
  let reminded = 0;
  status?.up(name);
  void (async () => {
    for await (const s of nc.status()) {
      if (expected()) continue;
      switch (s.type) {
        case 'disconnect':
          downAt = reminded = now();
          attempts = 0;
          status?.down(name);
          log?.warn({ ...fields, server: s.server }, 'bus connection lost');
          break;
        case 'reconnecting':
          attempts += 1;
          status?.attempt(name);
          log?.debug({ ...fields, attempts }, 'bus reconnect attempt');
          if (now() - reminded >= STILL_DOWN_REMINDER_MS) {
            reminded = now();
            log?.warn({ ...fields, attempts, downForMs: reminded - downAt }, 'bus still disconnected; reconnecting');
          }
          break;
        case 'reconnect':
          status?.up(name);
          log?.info({ ...fields, server: s.server, downForMs: now() - downAt, attempts }, 'bus connection restored');
          break;
        case 'error':
          log?.warn({ ...fields, error: s.error?.message }, 'bus error');
          break;
        case 'ldm':
          log?.warn({ ...fields, server: s.server }, 'bus server entering lame duck mode (shutting down)');
          break;
        case 'staleConnection':
          log?.warn(fields, 'bus connection stale: pings unanswered; reconnecting');
          break;
        case 'slowConsumer':
          log?.warn({ ...fields, subject: s.sub.getSubject(), pending: s.pending }, 'bus slow consumer');
          break;
        case 'update':
          // also sent, empty, on every reconnect
          if (s.added?.length || s.deleted?.length)
            log?.info({ ...fields, added: s.added, deleted: s.deleted }, 'bus cluster servers changed');
          break;
        case 'forceReconnect':
          log?.info(fields, 'bus reconnect forced');
          break;
        default:
          break; // ping: routine; close: below
      }
    }
  })();
  void nc.closed().then((error) => {
    if (expected()) {
      status?.remove(name);
      return;
    }
    status?.closed(name);
    log?.error({ ...fields, error: error?.message }, 'bus connection closed for good: it will not reconnect');
    watch.onLost?.(name, error ?? undefined);
  });
}

type Options = NonNullable<NatsOptions['options']>;

/** The message as the server strategy gets it (Nest types it loosely). */
interface IncomingNatsMsg {
  reply?: string;
  headers?: MsgHdrs;
}

type NatsMsgArg = Parameters<ServerNats['handleMessage']>[1];

/**
 * Nest's NATS server strategy, with forever-reconnect and the watcher on its connection; with
 * `tracing`, each message handled is a span, a child of the one its headers carry, ended with
 * the reply.
 */
class WatchedServerNats extends ServerNats implements DirectDispatch {
  private closeRequested = false;
  private direct: DirectHandlers = new Map();
  /** the span of each message being handled, for its reply (tracing only) */
  private readonly spans = new WeakMap<object, BusSpan>();

  constructor(
    options: Options,
    private readonly connectionName: string,
    private readonly watch: NatsWatch,
    private readonly queue: string,
    private readonly tracing?: BusTracing,
  ) {
    super(options);
  }

  override async createNatsClient() {
    const nc = (await super.createNatsClient()) as NatsConnection;
    watchNatsConnection(nc, this.connectionName, this.watch, () => this.closeRequested);
    return nc;
  }

  override getRouteFromPattern(pattern: string): string {
    return plainSubjectRoute(pattern) ?? super.getRouteFromPattern(pattern);
  }

  /** Requests to these subjects are answered by calling the handler, past Nest's pipeline (direct.ts). */
  useDirectHandlers(handlers: DirectHandlers): void {
    this.direct = handlers;
  }

  override handleMessage(channel: string, natsMsg: NatsMsgArg): Promise<unknown> {
    return this.tracing ? this.tracedMessage(this.tracing, channel, natsMsg) : this.dispatch(channel, natsMsg);
  }

  private dispatch(channel: string, natsMsg: NatsMsgArg): Promise<unknown> {
    const direct = this.direct.get(channel);
    return direct && (natsMsg as IncomingNatsMsg).reply
      ? this.handleDirect(direct, channel, natsMsg)
      : super.handleMessage(channel, natsMsg);
  }

  private async handleDirect(
    direct: (data: unknown) => Promise<unknown>,
    channel: string,
    natsMsg: NatsMsgArg,
  ): Promise<unknown> {
    const msg = natsMsg as IncomingNatsMsg;
    const message = (await this.deserializer.deserialize(natsMsg, { channel, replyTo: msg.reply })) as {
      id?: string;
      data?: unknown;
    };
    // a message without an id is an event (nobody waits for a reply): Nest's path, as before
    if (message.id === undefined) return super.handleMessage(channel, natsMsg);
    const publish = this.getPublisher(natsMsg, message.id, undefined as never);
    let reply: { response?: unknown; err?: unknown; isDisposed: boolean };
    try {
      reply = { response: await direct(message.data), isDisposed: true };
    } catch (err) {
      reply = { err, isDisposed: true };
    }
    try {
      return publish(reply as Parameters<typeof publish>[0]);
    } catch {
      return undefined; // the connection closed under the reply: the caller's timeout answers
    }
  }

  private tracedMessage(
    tracing: BusTracing,
    channel: string,
    natsMsg: Parameters<ServerNats['handleMessage']>[1],
  ): Promise<unknown> {
    const msg = natsMsg as IncomingNatsMsg;
    const span = tracing.receive(channel, 'nats', this.queue, (name) => msg.headers?.get(name) || undefined);
    // a request's span ends with its reply (getPublisher)
    this.spans.set(natsMsg, span);
    return handleTraced(span, Boolean(msg.reply), () => this.dispatch(channel, natsMsg));
  }

  override getPublisher(...args: Parameters<ServerNats['getPublisher']>): ReturnType<ServerNats['getPublisher']> {
    const publish = super.getPublisher(...args);
    const span = this.tracing ? this.spans.get(args[0]) : undefined;
    return span ? endWithReply(span, publish) : publish;
  }

  override async close(): Promise<void> {
    this.closeRequested = true;
    await super.close();
  }
}

/**
 * Nest's NATS client, with forever-reconnect and the watcher on its connection; with `tracing`,
 * each request (or event) sent is a span whose trace context goes in the message's headers.
 */
class WatchedClientNats extends ClientNats implements DirectRequests {
  private closeRequested = false;

  constructor(
    options: Options,
    private readonly connectionName: string,
    private readonly watch: NatsWatch,
    private readonly tracing?: BusTracing,
  ) {
    super(options);
  }

  override async createClient() {
    const nc = (await super.createClient()) as NatsConnection;
    watchNatsConnection(nc, this.connectionName, this.watch, () => this.closeRequested);
    return nc;
  }

  /**
   * The lean bus (direct.ts): the request goes through the connection's shared reply subscription,
   * without Nest's Observable and its subscription per request; with `tracing`, in a span whose
   * trace context goes in the message's headers, as `publish` does.
   */
  async requestDirect(subject: string, data: unknown, timeoutMs: number): Promise<unknown> {
    const span = this.tracing?.send(subject, 'nats', 'request');
    try {
      const nc = (await this.connect()) as NatsConnection;
      let headers: MsgHdrs | undefined;
      if (span) {
        const traced = natsHeaders();
        span.run(() => this.tracing!.inject((name, value) => traced.set(name, value)));
        headers = traced;
      }
      const answer = await nc
        .request(subject, requestPacket(subject, data), { timeout: timeoutMs, headers })
        .catch((error: unknown) => {
          throw isTimeout(error) ? new BusTimeoutError(subject, timeoutMs) : error;
        });
      const reply = deserializeReply(answer.string());
      if (reply.err) throw reply.err;
      span?.end();
      return reply.response;
    } catch (error) {
      span?.end(isTimeout(error) ? NO_REPLY : error);
      throw error;
    }
  }

  protected override publish(packet: ReadPacket, callback: (packet: WritePacket) => unknown): () => void {
    if (!this.tracing) return super.publish(packet, callback);
    // active while Nest publishes: mergeHeaders writes it into the message's headers
    const span = this.tracing.send(this.normalizePattern(packet.pattern), 'nats', 'request');
    return sendTraced(span, callback, (traced) => super.publish(packet, traced));
  }

  protected override dispatchEvent(packet: ReadPacket): Promise<unknown> {
    return this.tracing ? this.tracedEvent(this.tracing, packet) : super.dispatchEvent(packet);
  }

  private tracedEvent(tracing: BusTracing, packet: ReadPacket): Promise<unknown> {
    const span = tracing.send(this.normalizePattern(packet.pattern), 'nats', 'event');
    return handleTraced(span, false, () => super.dispatchEvent(packet));
  }

  /** Nest's headers of an outgoing message, with the active span's trace context (tracing only). */
  protected override mergeHeaders<THeaders = unknown>(requestHeaders?: THeaders): unknown {
    const merged = super.mergeHeaders(requestHeaders) as MsgHdrs | undefined;
    if (!this.tracing) return merged;
    const headers = merged ?? natsHeaders();
    this.tracing.inject((name, value) => headers.set(name, value));
    return headers;
  }

  override async close(): Promise<void> {
    this.closeRequested = true;
    await super.close();
  }
}

/** `tracing`: each message handled is a span (bus-tracing.ts); none, nothing is traced. */
export const natsServer = (url: string, queue: string, watch: NatsWatch = {}, tracing?: BusTracing) =>
  new WatchedServerNats(
    { ...natsConnectionOptions(url, `burrow-${queue}`), queue, serializer: new JsonTextReplySerializer() },
    `burrow-${queue}`,
    watch,
    queue,
    tracing,
  );

/** `tracing`: each request sent is a span, carried in the message's headers (bus-tracing.ts); none, nothing is traced. */
export const natsClient = (url: string, name: string, watch: NatsWatch = {}, tracing?: BusTracing) =>
  new WatchedClientNats(
    { ...natsConnectionOptions(url, `burrow-${name}`), deserializer: new JsonTextReplyDeserializer() },
    `burrow-${name}`,
    watch,
    tracing,
  );
