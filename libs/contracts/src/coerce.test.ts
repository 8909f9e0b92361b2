import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { coerceBool, coerceInt, INVALID, parseFields, queryInt } from './coerce.js';

const fieldsOf = (fn: () => unknown): string[] => {
  try {
    fn();
    return [];
  } catch (e) {
    return (e as { body: { fields?: string[] } }).body.fields ?? ['<no fields>'];
  }
};

describe('lenient request parsing (CLIENT-FACTS)', () => {
  it('coerces numeric and boolean strings, rejects everything else', () => {
    assert.equal(coerceInt('3'), 3);
    assert.equal(coerceInt(' -7 '), -7);
    assert.equal(coerceInt('3.5'), INVALID);
    assert.equal(coerceInt(1e400), INVALID);
    assert.equal(coerceBool('True'), true);
    assert.equal(coerceBool('0'), false);
    assert.equal(coerceBool('maybe'), INVALID);
  });

  it('names every invalid and missing field in one 400', () => {
    const specs = { name: { kind: 'nonEmptyString', required: true }, plan_id: { kind: 'int', required: true }, enabled: { kind: 'bool' } } as const;
    assert.deepEqual(fieldsOf(() => parseFields({ plan_id: 'x', enabled: 'perhaps' }, specs)).sort(), ['enabled', 'name', 'plan_id']);
    assert.deepEqual(parseFields({ name: ' Sales ', plan_id: '2', enabled: 'False', extra: 1 }, specs), { name: 'Sales', plan_id: 2, enabled: false });
  });

  it('prototype keys are unknown keys, never lookups into Object.prototype', () => {
    const specs = { name: { kind: 'string' } } as const;
    const body = JSON.parse('{"__proto__": {"polluted": true}, "constructor": "x", "toString": 1, "name": "ok"}');
    const out = parseFields(body, specs);
    assert.deepEqual(Object.keys(out), ['name']);
    assert.equal(({} as { polluted?: boolean }).polluted, undefined);
    assert.deepEqual(fieldsOf(() => parseFields(body, specs, { rejectUnknown: true })).sort(), ['__proto__', 'constructor', 'toString']);
  });

  it('query integers: absent is undefined, malformed or below the minimum is a 400 naming it', () => {
    assert.equal(queryInt({}, 'limit'), undefined);
    assert.equal(queryInt({ limit: '10' }, 'limit', 0), 10);
    assert.deepEqual(fieldsOf(() => queryInt({ limit: '-1' }, 'limit', 0)), ['limit']);
    assert.deepEqual(fieldsOf(() => queryInt({ limit: 'ten' }, 'limit', 0)), ['limit']);
  });
});
