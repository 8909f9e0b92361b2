/**
 * The feed as Server-Sent Events: each event is a frame `id: <position>`, `event: <type>`,
 * `data: <the event as JSON>`, so a browser's EventSource (or any client) resumes after the last
 * `id` it saw by sending it back as `Last-Event-ID`. Events come from long polls of the accounts
 * service (one bus call per burst of events or per wait), so any gateway replica serves any stream.
 *
 * Backpressure: when the socket's buffer is full the stream waits for `drain` before fetching more.
 * A comment line goes out whenever nothing else has for `heartbeatMs`, so proxies do not cut an
 * idle stream. The stream ends after `maxMs` (the client reconnects, re-authenticating, and
 * resumes), when a fetch is refused with 401 (the partner's password changed since the stream was
 * opened: nothing written after the change is sent), or when the client goes; the loop stops at once and nothing is left running but at
 * most one poll, which ends by itself within its wait.
 */
import { DomainError, type FeedPage, type PublicEvent } from '@burrow/contracts';
import type { Response } from 'express';

/** Reconnection delay suggested to clients (EventSource `retry:`). */
export const SSE_RETRY_MS = 3000;
/** Events per fetch. */
const BATCH = 100;
/** The longest a long poll waits for an event. */
const MAX_WAIT_MS = 25_000;

/** The last line of a stream whose credentials have changed (the partner's password). */
export const CREDENTIALS_CHANGED =
  'the partner password has changed: the stream ends; reconnect with the new credentials';

export const sseFrame = (event: PublicEvent): string =>
  `id: ${event.position}\nevent: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`;
export const sseComment = (text: string): string => `: ${text}\n\n`;

export interface SseOptions {
  heartbeatMs: number;
  maxMs: number;
}

/** Where a stream that ends by an unexpected error is reported (the gateway's logger). */
export interface StreamLog {
  error(details: object, message: string): void;
}

/** Fetches the page after `after`, waiting up to `waitMs` for one when there is none yet. */
export type FeedFetch = (after: number, limit: number, waitMs: number) => Promise<FeedPage>;

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export async function streamFeed(
  res: Response,
  from: number,
  fetch: FeedFetch,
  options: SseOptions,
  log: StreamLog,
): Promise<void> {
  let open = true;
  let wake: () => void = () => undefined;
  res.once('close', () => {
    open = false;
    wake();
  });
  res.status(200);
  res.set({
    'Content-Type': 'text/event-stream; charset=utf-8',
    'Cache-Control': 'no-store',
    'X-Accel-Buffering': 'no',
    Connection: 'keep-alive',
  });
  res.flushHeaders();

  let lastWrite = Date.now();
  /** Writes, and waits for the buffer to drain when it is full (or for the client to go). */
  const write = async (chunk: string) => {
    lastWrite = Date.now();
    if (res.write(chunk) || !open) return;
    await new Promise<void>((resolve) => {
      wake = resolve;
      res.once('drain', resolve);
    });
    res.removeListener('drain', wake);
  };

  await write(`retry: ${SSE_RETRY_MS}\n${sseComment('connected')}`);
  const deadline = Date.now() + options.maxMs;
  const waitMs = Math.min(options.heartbeatMs, MAX_WAIT_MS);
  let after = from;
  while (open && Date.now() < deadline) {
    let page: FeedPage;
    try {
      page = await fetch(after, BATCH, Math.min(waitMs, Math.max(deadline - Date.now(), 0)));
    } catch (error) {
      if (error instanceof DomainError && error.status === 401) {
        // the credentials the stream was opened with are no longer the partner's: nothing more is sent
        await write(sseComment(CREDENTIALS_CHANGED));
        break;
      }
      if (!(error instanceof DomainError) || error.status !== 503) {
        log.error({ err: { message: (error as Error).message } }, 'feed stream ended by an error');
        break;
      }
      // the accounts service is away: keep the stream, try again shortly
      await write(sseComment('waiting for the feed'));
      await pause(1000);
      continue;
    }
    for (const event of page.events) {
      if (!open) break;
      await write(sseFrame(event));
      after = event.position;
    }
    if (open && Date.now() - lastWrite >= options.heartbeatMs) await write(sseComment('heartbeat'));
  }
  if (open) res.end();
}
