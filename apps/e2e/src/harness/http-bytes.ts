/**
 * Binary responses in supertest (the body as a Buffer whatever the content type), and checking
 * zips with the real `unzip` tool.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { promisify } from 'node:util';
import type supertest from 'supertest';

const run = promisify(execFile);

/** The response body as bytes. */
export function bytes(request: supertest.Test): supertest.Test {
  return request.buffer(true).parse((res, done) => {
    const chunks: Buffer[] = [];
    res.on('data', (c: Buffer) => chunks.push(c));
    res.on('end', () => done(null, Buffer.concat(chunks)));
    res.on('error', (e) => done(e, null));
  });
}

let unzipChecked: boolean | undefined;
/** Is the `unzip` tool installed (CI installs it)? */
export async function hasUnzip(): Promise<boolean> {
  if (unzipChecked === undefined) {
    try {
      await run('unzip', ['-v']);
      unzipChecked = true;
    } catch {
      unzipChecked = false;
    }
  }
  return unzipChecked;
}

/**
 * Extracts a zip with `unzip` (after `unzip -t` checks every CRC) and returns path -> bytes of every
 * file in it. `keepControlCharacters`: unzip's `-^`, without which it drops control characters
 * from the names it extracts.
 */
export async function unzipAll(
  zip: Buffer,
  options: { keepControlCharacters?: boolean } = {},
): Promise<Map<string, Buffer>> {
  const dir = await mkdtemp(join(tmpdir(), 'burrow-unzip-'));
  try {
    const file = join(dir, 'archive.zip');
    await writeFile(file, zip);
    await run('unzip', ['-tqq', file]);
    const out = join(dir, 'out');
    await run('unzip', ['-qq', ...(options.keepControlCharacters ? ['-^'] : []), file, '-d', out], {
      env: { ...process.env, LC_ALL: 'C.UTF-8' },
    });
    const files = new Map<string, Buffer>();
    const walk = async (d: string): Promise<void> => {
      for (const name of await readdir(d)) {
        const p = join(d, name);
        if ((await stat(p)).isDirectory()) await walk(p);
        else files.set(relative(out, p), await readFile(p));
      }
    };
    await walk(out);
    return files;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
