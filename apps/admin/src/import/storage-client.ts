/**
 * The storage interface (B) as a backup client uses it, over HTTP(S): HTTP Basic as the user on
 * every request (no session), one keep-alive agent whose sockets bound the uploads in flight.
 * File bodies are streamed from disk with back-pressure, never read whole.
 */
import { b32encode } from '@burrow/contracts';
import { createReadStream } from 'node:fs';
import http, { type IncomingMessage } from 'node:http';
import https from 'node:https';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';

/**
 * The platform name backup clients report (and clients show an icon for): Python's `sys.platform`
 * of the original clients, `linux2` for Linux; Node's `win32` and `darwin` are the same names.
 */
export const clientPlatform = (platform: NodeJS.Platform): string => (platform === 'linux' ? 'linux2' : platform);

/** The gateway answered something other than what was asked for; `status` 0: no answer at all. */
export class StorageError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

/** What a folder listing says of a file: enough to tell whether a local file is already there. */
export interface RemoteFile {
  size: number;
  mtime: number;
  versions: number;
}

export interface UploadSource {
  /** the local file */
  file: string;
  size: number;
  mtime: number;
  ctime: number;
  /** called with each chunk's length as it is sent */
  onBytes(count: number): void;
}

/** A segment as the storage URLs carry it: percent-encoded UTF-8. */
const encodePath = (segments: readonly string[]) => segments.map(encodeURIComponent).join('/');

async function readText(res: IncomingMessage, limit = 1 << 20): Promise<string> {
  let text = '';
  for await (const chunk of res) {
    if (text.length < limit) text += chunk;
  }
  return text;
}

/** The `reason` of a JSON error body, or the start of whatever came. */
function reasonOf(text: string): string {
  try {
    const body = JSON.parse(text) as { reason?: unknown };
    if (typeof body.reason === 'string') return body.reason;
  } catch {
    // not JSON
  }
  return text.slice(0, 200) || '(no body)';
}

export class StorageClient {
  private readonly base: URL;
  private readonly root: string;
  private readonly authorization: string;
  private readonly agent: http.Agent;
  private readonly transport: typeof http | typeof https;

  constructor(
    url: string,
    readonly username: string,
    password: string,
    readonly device: string,
    concurrency: number,
  ) {
    this.base = new URL(url);
    if (this.base.protocol !== 'http:' && this.base.protocol !== 'https:')
      throw new Error(`--url must be http:// or https:// (got ${url})`);
    this.transport = this.base.protocol === 'https:' ? https : http;
    this.agent = new this.transport.Agent({ keepAlive: true, maxSockets: concurrency + 1 });
    this.root = `${this.base.pathname.replace(/\/+$/, '')}/storage/${b32encode(username)}/${encodeURIComponent(device)}/`;
    this.authorization = `Basic ${Buffer.from(`${username}:${password}`, 'utf8').toString('base64')}`;
  }

  close(): void {
    this.agent.destroy();
  }

  /** Registers the device (or logs it in): every import is a device login, `backupComplete` at its end. */
  async registerDevice(backupComplete = false): Promise<void> {
    const body = JSON.stringify({
      sysplatform: clientPlatform(process.platform),
      client_revision: 0,
      ...(backupComplete ? { backup_complete: true } : {}),
    });
    const res = await this.request(
      'PUT',
      this.root,
      { 'Content-Type': 'application/json', 'Content-Length': String(Buffer.byteLength(body)) },
      body,
    );
    const text = await readText(res);
    if (res.statusCode !== 200) throw this.refusal(res.statusCode ?? 0, text, `registering device ${this.device}`);
  }

  /** The files of one folder (`[]`: the device root) by name; empty when the folder is not there yet. */
  async listFolder(folder: readonly string[]): Promise<Map<string, RemoteFile>> {
    const path = this.root + (folder.length ? `${encodePath(folder)}/` : '');
    const res = await this.request('GET', path, { Accept: 'application/json' });
    const text = await readText(res, Number.MAX_SAFE_INTEGER);
    if (res.statusCode === 404) return new Map();
    if (res.statusCode !== 200) throw this.refusal(res.statusCode ?? 0, text, `listing /${folder.join('/')}`);
    const listing = JSON.parse(text) as { files?: { name: string; size: number; mtime: number; versions?: number }[] };
    return new Map(
      (listing.files ?? []).map((f) => [f.name, { size: f.size, mtime: f.mtime, versions: f.versions ?? 1 }]),
    );
  }

  /** Uploads one file as a new version of `path` (within the device). */
  async putFile(path: readonly string[], source: UploadSource): Promise<void> {
    const headers = {
      'Content-Type': 'application/octet-stream',
      'Content-Length': String(source.size),
      'X-Burrow-Mtime': String(source.mtime),
      'X-Burrow-Ctime': String(source.ctime),
    };
    const req = this.transport.request(new URL(this.root + encodePath(path), this.base), {
      method: 'PUT',
      agent: this.agent,
      headers: { ...headers, Authorization: this.authorization },
    });
    // The gateway may answer (a refusal) before it has read the body, and then close: the answer
    // is what counts, not the write that failed after it.
    const answered = new Promise<IncomingMessage>((resolve, reject) => {
      req.on('response', resolve);
      req.on('error', reject);
    });
    const meter = new Transform({
      transform(chunk: Buffer, _encoding, callback) {
        source.onBytes(chunk.length);
        callback(null, chunk);
      },
    });
    const file = createReadStream(source.file);
    let readError: Error | undefined;
    file.on('error', (error) => (readError ??= error));
    const sent = pipeline(file, meter, req);
    sent.catch(() => undefined); // a failure shows as the request's error, or as the refusal that came first
    let res: IncomingMessage;
    try {
      res = await answered;
    } catch (error) {
      // a local read error (the file vanished, or is unreadable) destroys the request: say so
      if (readError) throw readError;
      throw new StorageError(0, `no answer from ${this.base.origin}: ${(error as Error).message}`);
    }
    const text = await readText(res);
    if (res.statusCode === 201) return;
    throw this.refusal(res.statusCode ?? 0, text, `uploading /${path.join('/')}`);
  }

  private request(
    method: string,
    path: string,
    headers: Record<string, string>,
    body?: string,
  ): Promise<IncomingMessage> {
    return new Promise((resolve, reject) => {
      const req = this.transport.request(
        new URL(path, this.base),
        { method, agent: this.agent, headers: { ...headers, Authorization: this.authorization } },
        resolve,
      );
      req.on('error', (error) => reject(new StorageError(0, `no answer from ${this.base.origin}: ${error.message}`)));
      req.end(body);
    });
  }

  private refusal(status: number, text: string, doing: string): StorageError {
    const reason = reasonOf(text);
    if (status === 401)
      return new StorageError(
        status,
        `the gateway refused the credentials of ${this.username} (401: wrong username or password): ${reason}`,
      );
    return new StorageError(status, `${doing}: ${status} ${reason}`);
  }
}
