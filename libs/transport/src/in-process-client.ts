/**
 * Nest ClientProxy on the InProcessBus: what the gateway uses instead of ClientNats standalone.
 * With `tracing`, each request sent is a span, active while the bus delivers it (the handler's
 * span is its child), ended with the reply, as on NATS.
 */
import { ClientProxy, type ReadPacket, type WritePacket } from '@nestjs/microservices';
import { type BusTracing, NO_REPLY, sendTraced } from './bus-tracing.js';
import { BusTimeoutError, type DirectRequests, isTimeout, requestPacket } from './direct.js';
import type { InProcessBus } from './in-process-bus.js';
import { deserializeReply } from './json-text.js';

export class InProcessClient extends ClientProxy implements DirectRequests {
  constructor(
    private readonly bus: InProcessBus,
    private readonly tracing?: BusTracing,
  ) {
    super();
  }

  async connect(): Promise<void> {}

  close(): void {}

  unwrap<T>(): T {
    return this.bus as T;
  }

  /** The lean bus (direct.ts): one promise and one timer per request, no Observable. */
  requestDirect(subject: string, data: unknown, timeoutMs: number): Promise<unknown> {
    if (!this.tracing) return this.requestOnce(subject, data, timeoutMs);
    // the bus delivers in the context it was given the message in: the handler's span is this one's child
    const span = this.tracing.send(subject, 'in-process', 'request');
    return span
      .run(() => this.requestOnce(subject, data, timeoutMs))
      .then(
        (response) => {
          span.end();
          return response;
        },
        (error: unknown) => {
          span.end(isTimeout(error) ? NO_REPLY : error);
          throw error;
        },
      );
  }

  private requestOnce(subject: string, data: unknown, timeoutMs: number): Promise<unknown> {
    return new Promise((resolve, reject) => {
      let settled = false;
      const timer = setTimeout(() => {
        settled = true;
        reject(new BusTimeoutError(subject, timeoutMs));
      }, timeoutMs);
      try {
        this.bus.request(subject, requestPacket(subject, data), (raw) => {
          if (settled) return;
          settled = true;
          clearTimeout(timer);
          const reply = deserializeReply(raw);
          // the wire error as it came (a plain object), as Nest's client hands it on
          // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors
          if (reply.err) reject(reply.err);
          else resolve(reply.response);
        });
      } catch (error) {
        settled = true;
        clearTimeout(timer);
        reject(error);
      }
    });
  }

  protected publish(partialPacket: ReadPacket, callback: (packet: WritePacket) => void): () => void {
    if (!this.tracing) return this.request(partialPacket, callback);
    // the bus delivers in the context it was given the message in: the handler's span is this one's child
    const span = this.tracing.send(this.normalizePattern(partialPacket.pattern), 'in-process', 'request');
    return sendTraced(span, callback, (traced) => this.request(partialPacket, traced));
  }

  private request(partialPacket: ReadPacket, callback: (packet: WritePacket) => void): () => void {
    const packet = this.assignPacketId(partialPacket);
    let cancelled = false;
    try {
      this.bus.request(this.normalizePattern(packet.pattern), JSON.stringify(packet), (raw) => {
        if (!cancelled) callback(deserializeReply(raw) as WritePacket);
      });
    } catch (err) {
      callback({ err, isDisposed: true });
    }
    return () => {
      cancelled = true;
    };
  }

  protected async dispatchEvent<T = unknown>(packet: ReadPacket): Promise<T> {
    const publish = () =>
      void this.bus.publish(this.normalizePattern(packet.pattern), JSON.stringify({ data: packet.data }));
    if (!this.tracing) publish();
    else {
      const span = this.tracing.send(this.normalizePattern(packet.pattern), 'in-process', 'event');
      span.run(publish);
      span.end();
    }
    return undefined as T;
  }
}
