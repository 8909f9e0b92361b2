/**
 * A Server-Sent Events client for tests: opens `GET <url>` with `Accept: text/event-stream` (and
 * `Last-Event-ID` to resume), parses frames as they arrive, and lets a test wait for a number of
 * events, see comment lines (heartbeats), and disconnect.
 */
import { request } from 'node:http';

export interface SseFrame {
  id?: string;
  event?: string;
  data: string;
}

export interface SseStream {
  status: Promise<number>;
  frames: SseFrame[];
  comments: string[];
  /** resolves once the server has ended the stream (or the connection failed) */
  ended: Promise<void>;
  /** resolves once `n` frames have arrived (rejects after `timeoutMs`, or if the stream ends first) */
  waitFor(n: number, timeoutMs?: number): Promise<SseFrame[]>;
  close(): void;
}

export function openSse(url: string, auth: { username: string; password: string }, lastEventId?: string): SseStream {
  const frames: SseFrame[] = [];
  const comments: string[] = [];
  const listeners = new Set<() => void>();
  let ended = false;
  let setEnded: () => void = () => undefined;
  const endedPromise = new Promise<void>((resolve) => (setEnded = resolve));
  const notify = () => {
    if (ended) setEnded();
    for (const l of [...listeners]) l();
  };
  let setStatus: (status: number) => void = () => undefined;
  const status = new Promise<number>((resolve) => (setStatus = resolve));
  const headers: Record<string, string> = {
    accept: 'text/event-stream',
    authorization: `Basic ${Buffer.from(`${auth.username}:${auth.password}`).toString('base64')}`,
  };
  if (lastEventId !== undefined) headers['last-event-id'] = lastEventId;
  const req = request(url, { headers }, (res) => {
    setStatus(res.statusCode ?? 0);
    res.setEncoding('utf8');
    let buffer = '';
    res.on('data', (chunk: string) => {
      buffer += chunk;
      let cut: number;
      while ((cut = buffer.indexOf('\n\n')) >= 0) {
        const block = buffer.slice(0, cut);
        buffer = buffer.slice(cut + 2);
        const frame: SseFrame = { data: '' };
        let isFrame = false;
        for (const line of block.split('\n')) {
          if (line.startsWith(':')) comments.push(line.slice(1).trim());
          else if (line.startsWith('id: ')) {
            frame.id = line.slice(4);
            isFrame = true;
          } else if (line.startsWith('event: ')) frame.event = line.slice(7);
          else if (line.startsWith('data: ')) {
            frame.data += line.slice(6);
            isFrame = true;
          }
        }
        if (isFrame) frames.push(frame);
      }
      notify();
    });
    res.on('end', () => {
      ended = true;
      notify();
    });
  });
  req.on('error', () => {
    ended = true;
    setStatus(0);
    notify();
  });
  req.end();
  return {
    status,
    ended: endedPromise,
    frames,
    comments,
    waitFor(n, timeoutMs = 15_000) {
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => {
          listeners.delete(check);
          reject(new Error(`SSE: ${frames.length} of ${n} frames after ${timeoutMs} ms`));
        }, timeoutMs);
        const check = () => {
          if (frames.length >= n) {
            clearTimeout(timer);
            listeners.delete(check);
            resolve(frames.slice(0, n));
          } else if (ended) {
            clearTimeout(timer);
            listeners.delete(check);
            reject(new Error(`SSE stream ended after ${frames.length} of ${n} frames`));
          }
        };
        listeners.add(check);
        check();
      });
    },
    close: () => req.destroy(),
  };
}
