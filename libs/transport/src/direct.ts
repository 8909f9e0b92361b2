/**
 * The lean bus (issue 38): requests sent and handled without Nest's RPC pipeline and rxjs, on the
 * same subjects and queue groups and in the same wire format (Nest's request packet
 * `{pattern, data, id}` and reply envelope `{id, err, response, isDisposed}`), so that a plain Nest
 * client or server on the other end still understands every message.
 *
 * - **Handled**: a service's request handlers are given to its server strategy as plain functions
 *   (`DirectHandler`, built by libs/runtime's `directHandlers` from the controllers'
 *   `@MessagePattern` methods, with the service's hooks and its wire-error mapping). The strategy
 *   calls the function and writes its reply; Nest's execution context, guard and interceptor
 *   consumers, param factories, exception zone and the rxjs reply stream are not involved.
 * - **Sent**: both client transports (`InProcessClient`, the NATS client) answer `requestDirect`,
 *   which `RpcClient` uses: one promise, one timer, one reply. On NATS the request goes through the
 *   connection's shared reply subscription (`request`) instead of Nest's subscription per request
 *   (a SUB and an UNSUB for every call).
 *
 * Timeouts, 503s and their reasons stay `RpcClient`'s, as before.
 */
import { randomBytes } from 'node:crypto';

/** A request handler called directly: resolves to the reply's response; rejects with the reply's wire error. */
export type DirectHandler = (data: unknown) => Promise<unknown>;

/** What a server strategy takes its direct handlers from (subject -> handler). */
export type DirectHandlers = ReadonlyMap<string, DirectHandler>;

/** A server strategy that can call handlers directly. */
export interface DirectDispatch {
  useDirectHandlers(handlers: DirectHandlers): void;
}

export const hasDirectDispatch = (strategy: unknown): strategy is DirectDispatch =>
  typeof (strategy as Partial<DirectDispatch> | null)?.useDirectHandlers === 'function';

/** A client transport that sends a request without Nest's Observable pipeline. */
export interface DirectRequests {
  /**
   * Resolves to the reply's response (a `JsonText` one stays text); rejects with the reply's wire
   * error (`err`) as it came, a `BusTimeoutError` after `timeoutMs`, or the transport's own error
   * (no responders, a closed connection).
   */
  requestDirect(subject: string, data: unknown, timeoutMs: number): Promise<unknown>;
}

export const hasDirectRequests = (client: unknown): client is DirectRequests =>
  typeof (client as Partial<DirectRequests> | null)?.requestDirect === 'function';

/** No reply within the request's timeout (named as rxjs's and NATS's timeouts are). */
export class BusTimeoutError extends Error {
  constructor(subject: string, timeoutMs: number) {
    super(`no reply to ${subject} within ${timeoutMs} ms`);
    this.name = 'TimeoutError';
  }
}

/** Whether `error` says a request timed out (rxjs's, NATS's or ours). */
export const isTimeout = (error: unknown): boolean => error instanceof Error && error.name === 'TimeoutError';

const ID_PREFIX = randomBytes(6).toString('base64url');
let sequence = 0;

/** A request packet's id, unique in the process and across processes (what Nest's UUID is for). */
export const nextPacketId = (): string => `${ID_PREFIX}${(sequence++).toString(36)}`;

/** The request packet as Nest's clients write it. */
export const requestPacket = (subject: string, data: unknown): string =>
  JSON.stringify({ pattern: subject, data, id: nextPacketId() });
