/**
 * What the transports call when distributed tracing is on (libs/tracing implements it with the
 * OpenTelemetry SDK). Absent, the transports do nothing more than before: no span, no header, no
 * context, so tracing that is off costs nothing here.
 *
 * - A request (or event) sent is a span of the sender, active while the message is published, so
 *   that the trace context it carries names it as the parent: on NATS in the message's headers
 *   (W3C `traceparent`, `tracestate`), in one process through the active context itself.
 * - A request handled is a span of the handler's service, a child of the sender's, active while the
 *   handler runs (the stores it calls make their spans beneath it) and ended with the reply.
 */

/** Which bus carried the message: the spans say it (`messaging.system`). */
export type BusSystem = 'nats' | 'in-process';

export interface BusSpan {
  /** Runs `fn` with this span active: what it starts (a message published, a store call) is its child. */
  run<T>(fn: () => T): T;
  /**
   * Ends the span; only the first call counts. `error`: the call failed (a wire error with its
   * status, a thrown error, or a string saying why), the span says so.
   */
  end(error?: unknown): void;
}

export interface BusTracing {
  /** The span of a request (`request`, answered) or an event (`event`, nobody answers) sent to `subject`. */
  send(subject: string, system: BusSystem, kind: 'request' | 'event'): BusSpan;
  /**
   * The span of handling `subject` in the queue group `queue` (the service): a child of the span
   * the message's headers name (`header` reads one; NATS), else of the active one (in one process).
   */
  receive(subject: string, system: BusSystem, queue: string, header?: (name: string) => string | undefined): BusSpan;
  /** Writes the active span's trace context as message headers (`traceparent`, `tracestate`). */
  inject(set: (name: string, value: string) => void): void;
}

/** Why a request's span ended without a reply: the caller stopped waiting (RpcClient's timeout). */
export const NO_REPLY = 'no reply: the caller stopped waiting (timeout or cancelled)';

/**
 * A reply callback that ends `span` with the reply (a wire error fails it) before handing the
 * reply on; the teardown ends it as unanswered when the caller stops waiting first.
 */
export function endWithReply<P extends { err?: unknown; isDisposed?: boolean }>(
  span: BusSpan,
  callback: (packet: P) => unknown,
): (packet: P) => unknown {
  return (packet) => {
    if (packet.err) span.end(packet.err);
    else if (packet.isDisposed) span.end();
    return callback(packet);
  };
}

/**
 * A request sent in `span`: `publish` (the transport's own) runs with the span active, so the
 * trace context it carries names it, and gets a reply callback that ends the span with the reply;
 * the teardown it returns ends the span as unanswered when the caller stops waiting first.
 */
export function sendTraced<P extends { err?: unknown; isDisposed?: boolean }>(
  span: BusSpan,
  callback: (packet: P) => unknown,
  publish: (callback: (packet: P) => unknown) => () => void,
): () => void {
  const teardown = span.run(() => publish(endWithReply(span, callback)));
  return () => {
    span.end(NO_REPLY);
    teardown();
  };
}

/**
 * A message handled in `span`: `handle` runs with the span active (what it calls is the span's
 * child). A request's span ends with its reply (the transport's publisher, `endWithReply`); an
 * event's, which nobody answers (`answered` false), when `handle` is done.
 */
export async function handleTraced(span: BusSpan, answered: boolean, handle: () => Promise<unknown>): Promise<unknown> {
  try {
    return await span.run(handle);
  } catch (error) {
    span.end(error);
    throw error;
  } finally {
    if (!answered) span.end();
  }
}
