/**
 * The body of `POST /partner/backup`, `{"sha256": <hex>, "data": <base64>}`, read as a stream: it
 * is megabytes, so it is never held whole. The `data` string's characters go to `sink` as they
 * arrive (with back-pressure) and are hashed on the way; `sha256` may come before or after it.
 * What is hashed, stored and given back is the data text exactly as sent (after JSON unescaping:
 * `\/` is `/`, `\n` a line break), which is what a client hashes when it computes
 * `sha256(data)` over the string it puts in the body.
 *
 * Refusals are 400 naming the fields (missing, malformed, unknown, or a hash that does not match)
 * and 413 past `limit` bytes; none repeats any of the data.
 */
import { badRequest, payloadTooLarge, SHA256_HEX } from '@burrow/contracts';
import { createHash } from 'node:crypto';
import { once } from 'node:events';
import type { Writable } from 'node:stream';

export interface BackupBody {
  /** lowercase hex, as declared (and verified) */
  sha256: string;
  /** bytes of data text written to the sink */
  size: number;
}

const enum State {
  BeforeObject,
  BeforeFirstKey,
  BeforeKey,
  Key,
  Colon,
  Value,
  Data,
  DataEscape,
  Sha,
  AfterValue,
  End,
}

const isSpace = (c: number) => c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;
/** The standard base64 alphabet and padding. */
const BASE64 = new Uint8Array(256);
for (const c of 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/=') BASE64[c.charCodeAt(0)] = 1;
/** JSON escapes that can stand in base64 text: `\/` and line breaks. */
const DATA_ESCAPES: Record<number, number> = { 0x2f: 0x2f, 0x6e: 0x0a, 0x72: 0x0d };
/** Longest key read (raw, escapes included): far more than `sha256`, so any longer one is unknown. */
const KEY_MAX = 64;
const SHA_MAX = 64;

const invalidJson = () => badRequest('request body is not valid JSON');
const notBase64 = () => badRequest('data must be base64 text (A-Z, a-z, 0-9, +, /, =, line breaks)', ['data']);

export async function readBackupBody(
  source: AsyncIterable<Buffer>,
  sink: Writable,
  limit: number,
): Promise<BackupBody> {
  const hash = createHash('sha256');
  let state = State.BeforeObject as State;
  let total = 0;
  let size = 0;
  let key: number[] = [];
  let keyEscaped = false;
  let field = '';
  let sha = '';
  const seen = new Set<string>();

  const emit = async (chunk: Buffer) => {
    if (chunk.length === 0) return;
    size += chunk.length;
    hash.update(chunk);
    if (!sink.write(chunk)) await once(sink, 'drain');
  };

  for await (const chunk of source) {
    total += chunk.length;
    if (total > limit) throw payloadTooLarge(`request body over ${limit} bytes`);
    // start of the run of plain base64 not yet handed on, when inside data
    let runStart = state === State.Data ? 0 : -1;
    for (let i = 0; i < chunk.length; i++) {
      const c = chunk[i];
      switch (state) {
        case State.BeforeObject:
          if (isSpace(c)) break;
          if (c !== 0x7b /* { */) throw badRequest('request body must be a JSON object');
          state = State.BeforeFirstKey;
          break;
        case State.BeforeFirstKey:
        case State.BeforeKey:
          if (isSpace(c)) break;
          if (c === 0x7d /* } */ && state === State.BeforeFirstKey) state = State.End;
          else if (c === 0x22 /* " */) {
            key = [];
            keyEscaped = false;
            state = State.Key;
          } else throw invalidJson();
          break;
        case State.Key:
          if (c === 0x22 && !keyEscaped) {
            field = parseKey(key);
            if (field !== 'data' && field !== 'sha256')
              throw badRequest(`unknown field ${JSON.stringify(field)}: the body holds sha256 and data only`, [field]);
            if (seen.has(field)) throw badRequest(`${field} is given twice`, [field]);
            seen.add(field);
            state = State.Colon;
            break;
          }
          if (key.length >= KEY_MAX) throw badRequest('unknown field: the body holds sha256 and data only');
          keyEscaped = !keyEscaped && c === 0x5c; /* \ */
          key.push(c);
          break;
        case State.Colon:
          if (isSpace(c)) break;
          if (c !== 0x3a /* : */) throw invalidJson();
          state = State.Value;
          break;
        case State.Value:
          if (isSpace(c)) break;
          if (c !== 0x22) throw badRequest(`${field} must be a string`, [field]);
          if (field === 'data') {
            state = State.Data;
            runStart = i + 1;
          } else state = State.Sha;
          break;
        case State.Data: {
          // the bulk of the body: skip over plain base64 in a tight loop
          let end = i;
          while (end < chunk.length && BASE64[chunk[end]]) end++;
          i = end;
          if (end === chunk.length) break;
          // the end of a run of plain base64: hand it on, then deal with this byte
          if (end > runStart) await emit(chunk.subarray(runStart, end));
          if (chunk[end] === 0x22) state = State.AfterValue;
          else if (chunk[end] === 0x5c) state = State.DataEscape;
          else throw notBase64();
          break;
        }
        case State.DataEscape: {
          const unescaped = DATA_ESCAPES[c];
          if (unescaped === undefined) throw notBase64();
          await emit(Buffer.of(unescaped));
          state = State.Data;
          runStart = i + 1;
          break;
        }
        case State.Sha:
          if (c === 0x22) {
            if (!SHA256_HEX.test(sha)) throw badRequest('sha256 must be 64 hexadecimal digits', ['sha256']);
            state = State.AfterValue;
          } else if (sha.length >= SHA_MAX) throw badRequest('sha256 must be 64 hexadecimal digits', ['sha256']);
          else sha += String.fromCharCode(c);
          break;
        case State.AfterValue:
          if (isSpace(c)) break;
          if (c === 0x2c /* , */) state = State.BeforeKey;
          else if (c === 0x7d) state = State.End;
          else throw invalidJson();
          break;
        case State.End:
          if (!isSpace(c)) throw invalidJson();
          break;
      }
    }
    // the chunk ended inside plain base64: hand the rest on
    if (state === State.Data && runStart < chunk.length) await emit(chunk.subarray(runStart));
  }
  if (state === State.BeforeObject) throw badRequest('request body must be a JSON object');
  if (state !== State.End) throw invalidJson();
  const missing = ['sha256', 'data'].filter((f) => !seen.has(f));
  if (missing.length) throw badRequest(`invalid or missing parameters: ${missing.join(', ')}`, missing);
  if (size === 0) throw badRequest('data is empty', ['data']);
  const declared = sha.toLowerCase();
  if (hash.digest('hex') !== declared) {
    throw badRequest(
      'sha256 does not match the data (expected: the hex SHA-256 of the data string exactly as sent, i.e. of the base64 text)',
      ['sha256'],
    );
  }
  return { sha256: declared, size };
}

/** A key's raw bytes (between the quotes) as a string; escapes decoded as JSON does. */
function parseKey(raw: number[]): string {
  try {
    return JSON.parse(`"${Buffer.from(raw).toString('utf8')}"`) as string;
  } catch {
    throw invalidJson();
  }
}
