import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { DomainError } from './errors.js';
import { formBool, formInt, parseQuery, parseRequest, text, z } from './validation.js';

const fieldsOf = (fn: () => unknown): string[] => {
  try {
    fn();
    return [];
  } catch (e) {
    assert.ok(e instanceof DomainError, String(e));
    assert.equal(e.status, 400);
    return e.body.fields ?? ['<no fields>'];
  }
};

describe('lenient request parsing (CLIENT-FACTS)', () => {
  it('coerces numeric and boolean strings, rejects everything else', () => {
    const int = formInt();
    assert.equal(int.parse('3'), 3);
    assert.equal(int.parse(' -7 '), -7);
    for (const bad of ['3.5', Infinity, 3.5, '', 'x', '12345678901234567', true, null])
      assert.equal(int.safeParse(bad).success, false, String(bad));
    const bool = formBool();
    assert.equal(bool.parse('True'), true);
    assert.equal(bool.parse(' off '), false);
    assert.equal(bool.parse(1), true);
    assert.equal(bool.parse('0'), false);
    for (const bad of ['maybe', 2, '', null]) assert.equal(bool.safeParse(bad).success, false, String(bad));
  });

  it('bounds apply after coercion', () => {
    assert.equal(formInt({ min: 1, max: 12 }).safeParse('12').success, true);
    assert.equal(formInt({ min: 1, max: 12 }).safeParse('13').success, false);
    assert.equal(formInt({ min: 1, max: 12 }).safeParse(0).success, false);
  });

  it('names every invalid and missing field in one 400, and trims text', () => {
    const schema = z.object({ name: text(10), plan_id: formInt(), enabled: formBool().optional() });
    assert.deepEqual(fieldsOf(() => parseRequest(schema, { plan_id: 'x', enabled: 'perhaps' })).sort(), [
      'enabled',
      'name',
      'plan_id',
    ]);
    assert.deepEqual(parseRequest(schema, { name: ' Sales ', plan_id: '2', enabled: 'False', extra: 1 }), {
      name: 'Sales',
      plan_id: 2,
      enabled: false,
    });
    assert.deepEqual(
      fieldsOf(() => parseRequest(schema, { name: 'x'.repeat(11), plan_id: 1 })),
      ['name'],
    );
  });

  it('a body that is not an object is a 400 naming no field', () => {
    const schema = z.object({ name: text(10) });
    for (const body of [null, 'text', 42, ['a']])
      assert.deepEqual(
        fieldsOf(() => parseRequest(schema, body)),
        ['<no fields>'],
      );
  });

  it('prototype keys are unknown keys, never lookups into Object.prototype', () => {
    const body = JSON.parse('{"__proto__": {"polluted": true}, "constructor": "x", "toString": 1, "name": "ok"}');
    const out = parseRequest(z.object({ name: z.string() }), body);
    assert.deepEqual(Object.keys(out), ['name']);
    assert.equal(({} as { polluted?: boolean }).polluted, undefined);
    assert.deepEqual(fieldsOf(() => parseRequest(z.strictObject({ name: z.string() }), body)).sort(), [
      '__proto__',
      'constructor',
      'toString',
    ]);
  });

  it('a bare-value body names the field it stands for', () => {
    assert.deepEqual(
      fieldsOf(() => parseRequest(z.string().min(8), 'short', { field: 'password' })),
      ['password'],
    );
  });

  it('names the keys of a nested field (`policy.lan_sync`), and the field itself when it is not an object', () => {
    const schema = z.object({
      name: text(10),
      policy: z.strictObject({ lan_sync: formBool().optional(), kbps: formInt({ min: 8 }).optional() }),
    });
    const nested = ['policy'];
    assert.deepEqual(
      fieldsOf(() =>
        parseRequest(schema, { name: '', policy: { lan_sync: 'maybe', kbps: 1, bogus: 1 } }, { nested }),
      ).sort(),
      ['name', 'policy.bogus', 'policy.kbps', 'policy.lan_sync'],
    );
    assert.deepEqual(
      fieldsOf(() => parseRequest(schema, { name: 'a', policy: 'all' }, { nested })),
      ['policy'],
    );
    // without the option, the field alone is named (every other route)
    assert.deepEqual(
      fieldsOf(() => parseRequest(schema, { name: 'a', policy: { kbps: 1 } })),
      ['policy'],
    );
  });
});

describe('query parameters', () => {
  const schema = z.object({ limit: formInt({ min: 0 }).optional(), search: z.string().optional() });

  it('absent or empty is undefined; unknown parameters are ignored', () => {
    assert.deepEqual(parseQuery(schema, {}), {});
    assert.deepEqual(parseQuery(schema, { limit: '', _: '123', cb: 'x' }), {});
    assert.deepEqual(parseQuery(schema, { limit: '10' }), { limit: 10 });
  });

  it('malformed, below the minimum, repeated or bracketed: a 400 naming it', () => {
    assert.deepEqual(
      fieldsOf(() => parseQuery(schema, { limit: '-1' })),
      ['limit'],
    );
    assert.deepEqual(
      fieldsOf(() => parseQuery(schema, { limit: 'ten' })),
      ['limit'],
    );
    assert.deepEqual(
      fieldsOf(() => parseQuery(schema, { limit: ['1', '2'] })),
      ['limit'],
    );
    assert.deepEqual(
      fieldsOf(() => parseQuery(schema, { 'limit[]': '1' })),
      ['limit'],
    );
    assert.deepEqual(fieldsOf(() => parseQuery(schema, { 'search[$regex]': '.*', limit: 'x' })).sort(), [
      'limit',
      'search',
    ]);
  });
});
