/**
 * What one client address may hold of a gateway (issue 33, item 7), so that a flood from one
 * address (thousands of connections that never finish their request headers) cannot take the
 * file descriptors, memory and time every other client needs.
 *
 * At the socket, before a byte is read, the only thing known is the peer's address. A connection
 * from an address the gateway does not trust as a proxy (BURROW_TRUST_PROXY) is closed at once,
 * without an answer (answering would cost what the limit saves), when that address already has
 * - `perAddress` connections open (BURROW_MAX_CONNECTIONS_PER_ADDRESS), or
 * - `unfinishedHeadersPerAddress` connections whose first request's headers (the TLS handshake
 *   included) have not all arrived (BURROW_MAX_UNFINISHED_HEADERS_PER_ADDRESS);
 * and a connection whose first request's headers are not all in within `headersTimeoutSeconds`
 * (BURROW_HEADERS_TIMEOUT_SECONDS) is closed (a slowloris). Later requests on a kept-alive
 * connection get Node's `headersTimeout`, set to the same value (Node checks it every 30 s).
 * IPv6 addresses count by their /64 network, as login throttling does (`clientAddressKey`).
 *
 * A connection from a trusted proxy carries many clients: it is not limited at the socket. Once a
 * request's headers are in, its client address is known (`req.ip`: behind a trusted proxy, the
 * forwarded one), and `middleware` answers 429 `{"reason"}` when that address already has
 * `perAddress` requests in progress. A direct client never reaches that (one request at a time per
 * connection); behind a proxy it is what limits one client, while unfinished headers are the
 * proxy's to bound (Caddy forwards a request once its headers are complete).
 */
import { clientAddressKey } from '@burrow/runtime';
import type { NextFunction, Request, Response } from 'express';
import type { Server } from 'node:http';
import type { Socket } from 'node:net';
import { clientAddress } from './client-address.js';

export interface ConnectionLimits {
  /** open connections (at the socket) and requests in progress (after headers) per client address; 0: no limit */
  perAddress: number;
  /** connections whose first request's headers have not all arrived, per client address; 0: no limit */
  unfinishedHeadersPerAddress: number;
  /** how long a connection's first request headers may take to arrive (and Node's headersTimeout for later ones) */
  headersTimeoutSeconds: number;
}

export type RefusalReason = 'connections' | 'unfinished_headers' | 'headers_timeout' | 'requests';

interface AddressCount {
  open: number;
  unfinished: number;
}

interface Tracked {
  key: string;
  count: AddressCount;
  /** its first request's headers are not all in yet */
  unfinished: boolean;
  timer?: NodeJS.Timeout;
}

/** The peer's endpoint, which names one open connection (a TLS socket reports its TCP socket's). */
const endpoint = (socket: Socket) => `${socket.remoteAddress}|${socket.remotePort}`;

export class ConnectionLimiter {
  private readonly addresses = new Map<string, AddressCount>();
  /** connections whose first request's headers have not all arrived, by their peer's endpoint */
  private readonly waiting = new Map<string, Tracked>();
  private readonly inProgress = new Map<string, number>();

  constructor(
    private readonly limits: ConnectionLimits,
    /** whether a socket address is a proxy BURROW_TRUST_PROXY trusts (its connections are not limited here) */
    private readonly trusted: (address: string) => boolean,
    /** told of each refusal (metrics, a log line) */
    private readonly onRefused: (reason: RefusalReason, key: string) => void = () => undefined,
  ) {}

  /** Starts limiting the server's connections (before it listens). */
  attach(server: Server): void {
    server.headersTimeout = this.limits.headersTimeoutSeconds * 1000;
    server.on('connection', (socket: Socket) => this.accept(socket));
    server.on('request', (req: Request) => this.headersArrived(req.socket));
  }

  /** What one address holds now (tests, diagnostics). */
  held(address: string): { open: number; unfinished: number; requests: number } {
    const key = clientAddressKey(address);
    const count = this.addresses.get(key);
    return { open: count?.open ?? 0, unfinished: count?.unfinished ?? 0, requests: this.inProgress.get(key) ?? 0 };
  }

  private accept(socket: Socket): void {
    const address = socket.remoteAddress;
    // gone before it was seen
    if (address === undefined) return void socket.destroy();
    if (this.trusted(address)) return;
    const key = clientAddressKey(address);
    const count = this.addresses.get(key) ?? { open: 0, unfinished: 0 };
    const refused: RefusalReason | null =
      this.limits.perAddress > 0 && count.open >= this.limits.perAddress
        ? 'connections'
        : this.limits.unfinishedHeadersPerAddress > 0 && count.unfinished >= this.limits.unfinishedHeadersPerAddress
          ? 'unfinished_headers'
          : null;
    if (refused) {
      socket.destroy();
      this.onRefused(refused, key);
      return;
    }
    this.addresses.set(key, count);
    count.open++;
    count.unfinished++;
    const tracked: Tracked = { key, count, unfinished: true };
    const id = endpoint(socket);
    this.waiting.set(id, tracked);
    tracked.timer = setTimeout(() => {
      if (!tracked.unfinished) return;
      this.onRefused('headers_timeout', key);
      socket.destroy();
    }, this.limits.headersTimeoutSeconds * 1000);
    tracked.timer.unref();
    socket.once('close', () => {
      this.finishHeaders(tracked, id);
      count.open--;
      if (count.open === 0) this.addresses.delete(key);
    });
  }

  private headersArrived(socket: Socket): void {
    // the first request of a connection (later ones, and a trusted proxy's, are not waited for)
    const id = endpoint(socket);
    const tracked = this.waiting.get(id);
    if (tracked) this.finishHeaders(tracked, id);
  }

  private finishHeaders(tracked: Tracked, id: string): void {
    if (!tracked.unfinished) return;
    tracked.unfinished = false;
    tracked.count.unfinished--;
    clearTimeout(tracked.timer);
    if (this.waiting.get(id) === tracked) this.waiting.delete(id);
  }

  /** Express middleware: 429 for a client address with `perAddress` requests in progress already. */
  readonly middleware = (req: Request, res: Response, next: NextFunction): void => {
    if (this.limits.perAddress === 0) return next();
    const key = clientAddressKey(clientAddress(req));
    const now = this.inProgress.get(key) ?? 0;
    if (now >= this.limits.perAddress) {
      this.onRefused('requests', key);
      res.setHeader('Retry-After', '1');
      res.status(429).json({
        reason: `too many requests in progress from this address (${this.limits.perAddress}): wait for some to finish`,
      });
      return;
    }
    this.inProgress.set(key, now + 1);
    res.once('close', () => {
      const left = (this.inProgress.get(key) ?? 1) - 1;
      if (left > 0) this.inProgress.set(key, left);
      else this.inProgress.delete(key);
    });
    next();
  };
}
