import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { describe, it } from 'node:test';
import { createLogger } from './logger.js';

describe('logger', () => {
  it('writes JSON and redacts secrets wherever they sit', async () => {
    let out = '';
    const sink = new Writable({
      write(chunk, _e, cb) {
        out += chunk.toString();
        cb();
      },
    });
    const log = createLogger('t', 'info', sink);
    log.info(
      {
        password: 'hunter2-secret',
        body: { card_number: '4242424242424242', security_code: '123' },
        req: { headers: { authorization: 'Basic abc' } },
      },
      'hello',
    );
    await new Promise((r) => setImmediate(r));
    const line = JSON.parse(out.trim());
    assert.equal(line.msg, 'hello');
    assert.equal(line.service, 't');
    for (const secret of ['hunter2-secret', '4242424242424242', '"123"', 'Basic abc'])
      assert.ok(!out.includes(secret), `leaked ${secret}`);
  });
});
