/**
 * Nest custom transport strategy on the InProcessBus: a drop-in for the NATS server strategy in
 * standalone mode. Handlers subscribe in the service's queue group, exactly as on NATS. With
 * `tracing`, each message handled is a span, a child of the sender's (the active one: the bus
 * delivers in the sender's context), ended with the reply, as on NATS.
 */
import { BaseRpcContext, type CustomTransportStrategy, Server } from '@nestjs/microservices';
import type { InProcessBus } from './in-process-bus.js';
import { type BusSpan, type BusTracing, endWithReply, handleTraced } from './bus-tracing.js';
import type { DirectDispatch, DirectHandlers } from './direct.js';
import { serializeReply } from './json-text.js';
import { plainSubjectRoute } from './subject-route.js';

export class InProcessServer extends Server implements CustomTransportStrategy, DirectDispatch {
  private unsubscribers: (() => void)[] = [];
  private direct: DirectHandlers = new Map();

  constructor(
    private readonly bus: InProcessBus,
    private readonly queue: string,
    private readonly tracing?: BusTracing,
  ) {
    super();
  }

  /** Requests to these subjects are answered by calling the handler, past Nest's pipeline (direct.ts). */
  useDirectHandlers(handlers: DirectHandlers): void {
    this.direct = handlers;
  }

  listen(callback: (...optionalParams: unknown[]) => unknown): void {
    // As ServerNats does: every handler, event handlers included, joins the service's queue group.
    for (const subject of this.messageHandlers.keys()) {
      this.unsubscribers.push(
        this.bus.subscribe(
          subject,
          (message, reply) =>
            void (this.tracing
              ? this.traced(this.tracing, subject, message, reply)
              : this.dispatch(subject, message, reply)),
          this.queue,
        ),
      );
    }
    callback();
  }

  private async traced(
    tracing: BusTracing,
    subject: string,
    raw: string,
    reply?: (response: string) => void,
  ): Promise<void> {
    const span = tracing.receive(subject, 'in-process', this.queue);
    // a request's span ends with its reply (respond)
    await handleTraced(span, Boolean(reply), () => this.dispatch(subject, raw, reply, span));
  }

  private async dispatch(
    subject: string,
    raw: string,
    reply?: (response: string) => void,
    span?: BusSpan,
  ): Promise<void> {
    const packet = JSON.parse(raw) as { id?: string; data: unknown };
    const context = new BaseRpcContext([subject]);
    if (packet.id === undefined) {
      await this.handleEvent(subject, { pattern: subject, data: packet.data }, context);
      return;
    }
    const respond = (response: { err?: unknown; response?: unknown; isDisposed?: boolean }) => {
      if (span) endWithReply(span, () => undefined)(response);
      reply?.(serializeReply({ ...response, id: packet.id }));
    };
    const direct = this.direct.get(subject);
    if (direct) {
      let response: unknown;
      try {
        response = await direct(packet.data);
      } catch (err) {
        respond({ err, isDisposed: true });
        return;
      }
      respond({ response, isDisposed: true });
      return;
    }
    const handler = this.getHandlerByPattern(subject);
    if (!handler) {
      respond({ err: `no handler for ${subject}`, isDisposed: true });
      return;
    }
    try {
      const response$ = this.transformToObservable(await handler(packet.data, context));
      this.send(response$, respond);
    } catch (err) {
      respond({ err, isDisposed: true });
    }
  }

  override getRouteFromPattern(pattern: string): string {
    return plainSubjectRoute(pattern) ?? super.getRouteFromPattern(pattern);
  }

  close(): void {
    for (const unsubscribe of this.unsubscribers) unsubscribe();
    this.unsubscribers = [];
  }

  on(): void {}

  unwrap<T>(): T {
    return this.bus as T;
  }
}
