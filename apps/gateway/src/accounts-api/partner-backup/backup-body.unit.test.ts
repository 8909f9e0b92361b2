import { DomainError } from '@burrow/contracts';
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { Writable } from 'node:stream';
import { describe, it } from 'node:test';
import { readBackupBody } from './backup-body.js';

const sha = (text: string) => createHash('sha256').update(text).digest('hex');

/** A sink that keeps what it gets (slowly, to exercise back-pressure). */
function collector(highWaterMark = 16) {
  const parts: Buffer[] = [];
  const sink = new Writable({
    highWaterMark,
    write(chunk: Buffer, _e, done) {
      parts.push(chunk);
      setImmediate(done);
    },
  });
  return { sink, text: () => Buffer.concat(parts).toString('latin1') };
}

async function* chunks(body: string, size: number) {
  const bytes = Buffer.from(body, 'utf8');
  for (let i = 0; i < bytes.length; i += size) yield bytes.subarray(i, i + size);
}

async function read(body: string, size = 1 << 16, limit = 1 << 20) {
  const { sink, text } = collector();
  const result = await readBackupBody(chunks(body, size), sink, limit);
  // what the sink was handed may still be on its way through: the caller ends it
  sink.end();
  await once(sink, 'finish');
  return { ...result, data: text() };
}

async function refusal(body: string, limit = 1 << 20): Promise<DomainError> {
  try {
    await read(body, 7, limit);
  } catch (e) {
    assert.ok(e instanceof DomainError, String(e));
    return e;
  }
  assert.fail(`accepted ${body.slice(0, 80)}`);
}

describe('POST /partner/backup body (streamed)', () => {
  const data = randomBytes(3000).toString('base64');

  it('hands on the data text exactly, whatever the chunking, with sha256 before or after it', async () => {
    for (const size of [1, 2, 3, 7, 64, 1 << 16]) {
      for (const body of [
        JSON.stringify({ sha256: sha(data), data }),
        ` { "data" : "${data}" ,\n "sha256":"${sha(data).toUpperCase()}" } `,
      ]) {
        const got = await read(body, size);
        assert.equal(got.data, data, `chunks of ${size}`);
        assert.deepEqual([got.sha256, got.size], [sha(data), data.length]);
      }
    }
  });

  it('unescapes \\/ and line breaks (MIME-style base64), and the hash is over the unescaped text', async () => {
    const wrapped = data.match(/.{1,76}/g)!.join('\n');
    const body = JSON.stringify({ data: wrapped, sha256: sha(wrapped) }).replaceAll('/', '\\/');
    assert.ok(body.includes('\\n') && body.includes('\\/'));
    for (const size of [1, 5, 1 << 16]) assert.equal((await read(body, size)).data, wrapped);
  });

  it('refuses a hash that does not match, naming sha256, without repeating the data', async () => {
    const e = await refusal(JSON.stringify({ sha256: sha(`${data}x`), data }));
    assert.deepEqual([e.status, e.body.fields], [400, ['sha256']]);
    assert.ok(!e.body.reason.includes(data.slice(0, 16)));
    // the hash of the decoded bytes is not what is checked
    const decodedHash = createHash('sha256').update(Buffer.from(data, 'base64')).digest('hex');
    assert.deepEqual((await refusal(JSON.stringify({ sha256: decodedHash, data }))).body.fields, ['sha256']);
  });

  it('names missing, malformed, repeated and unknown fields', async () => {
    const cases: [string, string[] | undefined][] = [
      ['{}', ['sha256', 'data']],
      [JSON.stringify({ data }), ['sha256']],
      [JSON.stringify({ sha256: sha(data) }), ['data']],
      [JSON.stringify({ sha256: 'abc', data }), ['sha256']],
      [JSON.stringify({ sha256: sha(data), data: 'not base64!' }), ['data']],
      [JSON.stringify({ sha256: sha(data), data: 'AAAA\tAAAA' }), ['data']],
      [JSON.stringify({ sha256: sha(''), data: '' }), ['data']],
      [JSON.stringify({ sha256: 5, data }), ['sha256']],
      [`{"data": "${data}", "data": "${data}", "sha256": "${sha(data)}"}`, ['data']],
      [JSON.stringify({ sha256: sha(data), data, note: 'x' }), ['note']],
      [`{"${'k'.repeat(500)}": 1}`, undefined],
      // hostile shapes end at the first byte that cannot be right, however deep they would go
      [`{"data": ${'['.repeat(100_000)}`, ['data']],
      [`{"sha256": {"a": ${'{"a":'.repeat(10_000)}`, ['sha256']],
    ];
    for (const [body, fields] of cases) {
      const e = await refusal(body);
      assert.equal(e.status, 400, body.slice(0, 60));
      assert.deepEqual(e.body.fields, fields, body.slice(0, 60));
    }
  });

  it('refuses what is not a JSON object, or not valid JSON, with 400', async () => {
    for (const body of [
      '',
      '[]',
      '"text"',
      '{',
      `{"sha256": "${sha(data)}", "data": "${data}"`,
      `{"sha256": "${sha(data)}", "data": "${data}",}`,
      `{"sha256": "${sha(data)}" "data": "x"}`,
      `{"sha256": "${sha(data)}", "data": "${data}"} x`,
      '{,}',
    ]) {
      assert.equal((await refusal(body)).status, 400, body.slice(0, 60));
    }
  });

  it('stops with 413 as soon as the body passes the limit', async () => {
    const body = JSON.stringify({ sha256: sha(data), data });
    assert.equal((await refusal(body, body.length - 1)).status, 413);
    assert.equal((await read(body, 100, body.length)).size, data.length);
  });
});
