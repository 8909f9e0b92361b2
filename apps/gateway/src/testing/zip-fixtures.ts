/**
 * Helpers for the zip writer's tests: entries over buffers, collecting an
 * archive in memory, and running the real Info-ZIP tools (in a UTF-8 locale, so names survive).
 */
import { spawnSync } from 'node:child_process';
import { Readable, Writable } from 'node:stream';
import { crc32 } from 'node:zlib';
import type { ZipEntries, ZipFileEntry } from '../transfers/zip/types.js';

export const toolAvailable = (tool: string, args = ['-v']) => spawnSync(tool, args, { stdio: 'ignore' }).status === 0;

/** Runs a tool in a UTF-8 locale; throws with its output when it fails. */
export function run(tool: string, args: string[], cwd?: string): string {
  const r = spawnSync(tool, args, {
    cwd,
    encoding: 'utf8',
    env: { ...process.env, LANG: 'C.UTF-8', LC_ALL: 'C.UTF-8' },
    maxBuffer: 256 * 1024 * 1024,
  });
  if (r.status !== 0) throw new Error(`${tool} ${args.join(' ')} exited ${r.status}: ${r.stdout}\n${r.stderr}`);
  return r.stdout;
}

export interface OpenCall {
  path: string;
  start: number;
  end: number;
}

/** An entry over a buffer, yielding it in chunks of `chunk` bytes; records every open in `opens`. */
export function bufferEntry(
  path: string,
  content: Buffer,
  mtime: number,
  opens?: OpenCall[],
  chunk = 7919,
): ZipFileEntry {
  return {
    path,
    size: content.length,
    crc32: crc32(content) >>> 0,
    mtime,
    id: `buf:${path}`,
    async open(start, end) {
      opens?.push({ path, start, end });
      const part = content.subarray(start, end + 1);
      return Readable.from(
        (function* () {
          for (let i = 0; i < part.length; i += chunk) yield part.subarray(i, i + chunk);
        })(),
      );
    },
  };
}

export const fromArray = (entries: ZipFileEntry[]): ZipEntries =>
  async function* () {
    yield* entries;
  };

/** A Writable that keeps everything written to it. */
export class Collector extends Writable {
  readonly chunks: Buffer[] = [];

  override _write(chunk: Buffer, _encoding: BufferEncoding, done: (err?: Error | null) => void): void {
    this.chunks.push(chunk);
    done();
  }

  bytes(): Buffer {
    return Buffer.concat(this.chunks);
  }
}
