/**
 * Raw `node:http` exchanges for tests that must control or observe the bytes on the wire: how a
 * response body ends (whole, short of its Content-Length, reset), a request body sent slowly,
 * stalled or chunked, a reader that stops reading. supertest buffers both sides and cannot.
 */
import http, { type IncomingHttpHeaders } from 'node:http';

export interface RawResponse {
  status: number | undefined;
  headers: IncomingHttpHeaders;
  body: Buffer;
  /** the body ended normally (not cut off by a reset or a destroyed connection) */
  complete: boolean;
  /** the connection failed before a response arrived (reset, closed) */
  error?: Error;
  /** request body bytes handed to the socket before the response began (all of them if none came) */
  sentBeforeResponse: number;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export interface RawRequestOptions {
  method?: string;
  headers?: Record<string, string>;
  /**
   * The request body: chunks written one after another, each after its `delayMs` (back-pressure
   * respected). With no Content-Length header the body goes chunked.
   */
  body?: { chunk: Buffer; delayMs?: number }[];
  /** after the last chunk, leave the request open (a client that stalls) instead of ending it */
  stallAfterBody?: boolean;
  /** read the response at most this fast (bytes per second), pausing the socket in between */
  readBytesPerSecond?: number;
  /** stop reading once this many response bytes arrived, for `pauseMs` (then read on) */
  pauseReadingAfter?: { bytes: number; pauseMs: number };
  /**
   * Stop reading once this many response bytes arrived, wait a moment (the server is then held by
   * back-pressure) and destroy the connection: a client hanging up mid-body (`complete` is false).
   */
  hangUpAfter?: number;
  /** a hang is a failure: reject when nothing settled by then (default 30 s) */
  timeoutMs?: number;
}

/** One request; resolves when the response ended or the connection closed, however that happened. */
export function rawRequest(url: string, options: RawRequestOptions = {}): Promise<RawResponse> {
  const timeoutMs = options.timeoutMs ?? 30_000;
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let received = 0;
    let sent = 0;
    let sentBeforeResponse: number | undefined;
    let settled = false;
    let response: http.IncomingMessage | undefined;
    const finish = (result?: RawResponse, error?: Error) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      if (error) reject(error);
      else resolve(result!);
    };
    const timer = setTimeout(() => {
      req.destroy();
      finish(undefined, new Error(`${options.method ?? 'GET'} ${url}: nothing settled in ${timeoutMs} ms (a hang)`));
    }, timeoutMs);
    const req = http.request(
      url,
      { method: options.method ?? 'GET', headers: options.headers, agent: false },
      (res) => {
        response = res;
        sentBeforeResponse = sent;
        let paused = false;
        res.on('data', (chunk: Buffer) => {
          chunks.push(chunk);
          received += chunk.length;
          const pause = options.pauseReadingAfter;
          if (options.hangUpAfter !== undefined && received >= options.hangUpAfter) {
            res.pause();
            setTimeout(() => req.destroy(), 200);
          } else if (pause && !paused && received >= pause.bytes) {
            paused = true;
            res.pause();
            setTimeout(() => res.resume(), pause.pauseMs);
          } else if (options.readBytesPerSecond) {
            res.pause();
            setTimeout(() => res.resume(), (chunk.length / options.readBytesPerSecond) * 1000);
          }
        });
        res.on('error', () => undefined);
        res.on('close', () =>
          finish({
            status: res.statusCode,
            headers: res.headers,
            body: Buffer.concat(chunks),
            sentBeforeResponse: sentBeforeResponse ?? sent,
            complete: res.complete && !(options.hangUpAfter !== undefined && received >= options.hangUpAfter),
          }),
        );
      },
    );
    req.on('error', (error) => {
      if (!response)
        finish({
          status: undefined,
          headers: {},
          body: Buffer.alloc(0),
          complete: false,
          error,
          sentBeforeResponse: sent,
        });
    });
    // the headers go at once, even for a body that never comes
    req.flushHeaders();
    void (async () => {
      for (const part of options.body ?? []) {
        if (part.delayMs) await sleep(part.delayMs);
        if (req.destroyed || response) return;
        sent += part.chunk.length;
        if (!req.write(part.chunk)) await new Promise((r) => req.once('drain', r));
      }
      if (!options.stallAfterBody && !response) req.end();
    })().catch(() => undefined);
  });
}

/** Basic credentials as a header. */
export const basicAuth = (username: string, password: string) => ({
  Authorization: `Basic ${Buffer.from(`${username}:${password}`).toString('base64')}`,
});
