/**
 * Writing to a response with back-pressure, and never hanging on a client that went away: every
 * wait also ends when the response closes. `copyExactly` checks the byte count too, so a blob that
 * is shorter or longer than the catalog says is an error (the caller then destroys the connection)
 * rather than a wrong body with a right-looking length.
 */
import type { Readable, Writable } from 'node:stream';

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

const gone = (out: Writable) => out.destroyed || out.writableEnded || (out as Writable & { closed?: boolean }).closed === true;

/** Resolves when `out` can take more, rejects (ClientGoneError) when it closes first. */
export function drained(out: Writable): Promise<void> {
  if (gone(out)) return Promise.reject(new ClientGoneError());
  return new Promise((resolve, reject) => {
    const done = (error?: Error) => {
      out.off('drain', onDrain);
      out.off('close', onClose);
      out.off('error', onClose);
      if (error) reject(error);
      else resolve();
    };
    const onDrain = () => done();
    const onClose = () => done(new ClientGoneError());
    out.on('drain', onDrain);
    out.on('close', onClose);
    out.on('error', onClose);
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
  return new Promise<void>((resolve, reject) => {
    let copied = 0;
    let settled = false;
    const settle = (error?: Error) => {
      if (settled) return;
      settled = true;
      source.off('data', onData);
      source.off('end', onEnd);
      source.off('error', settle);
      out.off('drain', onDrain);
      out.off('close', onGone);
      out.off('error', onGone);
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
      if (!out.write(chunk)) source.pause();
    };
    const onDrain = () => source.resume();
    const onEnd = () => settle(copied === length ? undefined : new ShortBlobError(length, copied));
    const onGone = () => settle(new ClientGoneError());
    if (gone(out)) return settle(new ClientGoneError());
    source.on('data', onData);
    source.once('end', onEnd);
    source.once('error', settle);
    out.on('drain', onDrain);
    out.once('close', onGone);
    out.once('error', onGone);
  });
}
