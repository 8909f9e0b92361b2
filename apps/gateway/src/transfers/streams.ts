/**
 * Writing to a response with back-pressure, and never hanging on a client that went away: every
 * wait also ends when the response closes. `copyExactly` checks the byte count too, so a blob that
 * is shorter or longer than the catalog says is an error (the caller then destroys the connection)
 * rather than a wrong body with a right-looking length. A chunk written to an HTTP response is
 * given back to the blob store's read buffers once the socket has taken it (`recycleReadBuffer`).
 */
import { recycleReadBuffer } from '@burrow/blobs';
import { ServerResponse } from 'node:http';
import type { Readable, Writable } from 'node:stream';

/**
 * Whether a chunk written to `out` is nobody's once its write's callback has run, so a blob read's
 * buffer may be given back then: true of an HTTP response (its socket has handed the bytes to the
 * kernel, or to TLS, which encrypts them into buffers of its own), not of a Writable in general,
 * which may keep the chunk itself (a test's collector does).
 */
export const keepsNoChunks = (out: Writable): boolean => out instanceof ServerResponse;

export class ClientGoneError extends Error {
  constructor() {
    super('the client closed the connection');
    this.name = 'ClientGoneError';
  }
}

export class ShortBlobError extends Error {
  constructor(expected: number, got: number) {
    super(`stored bytes do not match the catalog: expected ${expected}, got ${got}`);
    this.name = 'ShortBlobError';
  }
}

const ignore = () => undefined;

const gone = (out: Writable) =>
  out.destroyed || out.writableEnded || (out as Writable & { closed?: boolean }).closed === true;

type Listeners = [NodeJS.EventEmitter, string, Parameters<NodeJS.EventEmitter['on']>[1]][];

/** Adds the listeners; returns what removes them all. */
function attach(listeners: Listeners): () => void {
  for (const [emitter, event, listener] of listeners) emitter.on(event, listener);
  return () => {
    for (const [emitter, event, listener] of listeners) emitter.off(event, listener);
  };
}

/** Resolves when `out` can take more, rejects (ClientGoneError) when it closes first. */
export function drained(out: Writable): Promise<void> {
  if (gone(out)) return Promise.reject(new ClientGoneError());
  return new Promise((resolve, reject) => {
    const done = (error?: Error) => {
      detach();
      if (error) reject(error);
      else resolve();
    };
    const onClose = () => done(new ClientGoneError());
    const detach = attach([
      [out, 'drain', () => done()],
      [out, 'close', onClose],
      [out, 'error', onClose],
    ]);
  });
}

/** Writes a chunk, waiting for the drain when the buffer is full. */
export async function write(out: Writable, chunk: Buffer | string): Promise<void> {
  if (gone(out)) throw new ClientGoneError();
  if (!out.write(chunk)) await drained(out);
}

/**
 * Copies exactly `length` bytes of `source` to `out` (not ending `out`); destroys `source` on
 * failure. Event-driven (`data`, pausing the source while `out` is full) rather than an async
 * iteration: a download of one chunk paid more for the iterator's promises than for the copy.
 */
export function copyExactly(source: Readable, out: Writable, length: number): Promise<void> {
  if (gone(out)) {
    source.destroy();
    return Promise.reject(new ClientGoneError());
  }
  const giveBack = keepsNoChunks(out);
  return new Promise<void>((resolve, reject) => {
    let copied = 0;
    let settled = false;
    const settle = (error?: Error) => {
      if (settled) return;
      settled = true;
      detach();
      // the source is ours alone: an error it reports after this (closing its file) has no one to tell
      source.on('error', ignore);
      if (error) {
        source.destroy();
        reject(error);
      } else resolve();
    };
    const onData = (chunk: Buffer) => {
      copied += chunk.length;
      if (copied > length) return settle(new ShortBlobError(length, copied));
      if (gone(out)) return settle(new ClientGoneError());
      // once the socket has it, a chunk of the blob store's read is nobody's: its buffer reads the next (read-buffers.ts)
      const written = giveBack
        ? out.write(chunk, (error) => {
            if (!error) recycleReadBuffer(chunk);
          })
        : out.write(chunk);
      if (!written) source.pause();
    };
    const onGone = () => settle(new ClientGoneError());
    const detach = attach([
      [source, 'data', onData],
      [source, 'end', () => settle(copied === length ? undefined : new ShortBlobError(length, copied))],
      [source, 'error', settle],
      [out, 'drain', () => source.resume()],
      [out, 'close', onGone],
      [out, 'error', onGone],
    ]);
  });
}
