/**
 * Evaluates the MongoDB filter subset of the DocumentStore port against plain objects, with
 * MongoDB's semantics for the cases read models rely on (null matches missing, equality against
 * an array field matches any member, range operators only compare values of the same type).
 */
import type { Document, Filter, SortSpec } from './port.js';

export function getPath(doc: unknown, path: string): unknown {
  let value: unknown = doc;
  for (const key of path.split('.')) {
    if (value === null || typeof value !== 'object') return undefined;
    value = (value as Record<string, unknown>)[key];
  }
  return value;
}

/**
 * True when `path` in `doc` is reached through an array or holds an array or an object: an index
 * of single values cannot say whether such a document matches a condition on that path.
 */
export function isLoose(doc: unknown, path: string): boolean {
  return isLooseAt(doc, path.split('.'));
}

/** isLoose with the path split at its dots. */
export function isLooseAt(doc: unknown, keys: readonly string[]): boolean {
  let value: unknown = doc;
  for (const key of keys) {
    if (value === null || typeof value !== 'object') return false;
    if (Array.isArray(value)) return true;
    value = (value as Record<string, unknown>)[key];
  }
  return value !== null && typeof value === 'object';
}

/**
 * Every value a dotted path can reach, descending into arrays of subdocuments as MongoDB does
 * (`{'items.sku': 'x'}` matches when any item's sku is 'x'). Missing paths yield [undefined].
 */
export function getPathValues(doc: unknown, path: string): unknown[] {
  let values: unknown[] = [doc];
  for (const key of path.split('.')) {
    const next: unknown[] = [];
    for (const v of values) {
      if (v === null || typeof v !== 'object') continue;
      if (Array.isArray(v) && !/^\d+$/.test(key)) {
        for (const item of v)
          if (item !== null && typeof item === 'object' && !Array.isArray(item))
            next.push((item as Record<string, unknown>)[key]);
      } else {
        next.push((v as Record<string, unknown>)[key]);
      }
    }
    values = next;
  }
  const present = values.filter((v) => v !== undefined);
  return present.length ? present : [undefined];
}

const isOperatorObject = (v: unknown): v is Record<string, unknown> =>
  v !== null && typeof v === 'object' && !Array.isArray(v) && Object.keys(v).some((k) => k.startsWith('$'));

function equals(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if ((a === null || a === undefined) && (b === null || b === undefined)) return true;
  if (typeof a === 'object' && typeof b === 'object' && a && b) return JSON.stringify(a) === JSON.stringify(b);
  return false;
}

function matchesEq(actual: unknown, expected: unknown): boolean {
  if (Array.isArray(actual) && !Array.isArray(expected)) return actual.some((m) => equals(m, expected));
  return equals(actual, expected);
}

/**
 * Strings in code point order, which is the order of their UTF-8 bytes (MongoDB's and SQLite's
 * binary order). UTF-16 code units disagree only past the first difference between a surrogate
 * (U+D800-DFFF, half of a character above U+FFFF) and a unit in U+E000-FFFF.
 */
export function compareStrings(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x === y) continue;
    return codePointRank(x) - codePointRank(y);
  }
  return a.length - b.length;
}

const codePointRank = (unit: number) => (unit >= 0xe000 ? unit - 0x800 : unit >= 0xd800 ? unit + 0x2000 : unit);

/** Same-typed values: numbers and booleans as JavaScript orders them, strings by code point. */
function compareValues(a: number | string | boolean, b: number | string | boolean): number {
  if (typeof a === 'string' && typeof b === 'string') return compareStrings(a, b);
  return a < b ? -1 : a > b ? 1 : 0;
}

function comparable(a: unknown, b: unknown): boolean {
  return (
    (typeof a === 'number' && typeof b === 'number') ||
    (typeof a === 'string' && typeof b === 'string') ||
    (typeof a === 'boolean' && typeof b === 'boolean')
  );
}

function compareOp(actual: unknown, op: string, operand: unknown): boolean {
  const values = Array.isArray(actual) ? actual : [actual];
  return values.some((v) => {
    if (!comparable(v, operand)) return false;
    const c = compareValues(v as number | string, operand as number | string);
    switch (op) {
      case '$gt':
        return c > 0;
      case '$gte':
        return c >= 0;
      case '$lt':
        return c < 0;
      case '$lte':
        return c <= 0;
      default:
        return false;
    }
  });
}

function matchesField(actual: unknown, condition: unknown): boolean {
  if (!isOperatorObject(condition)) return matchesEq(actual, condition);
  for (const [op, operand] of Object.entries(condition)) {
    switch (op) {
      case '$eq':
        if (!matchesEq(actual, operand)) return false;
        break;
      case '$ne':
        if (matchesEq(actual, operand)) return false;
        break;
      case '$gt':
      case '$gte':
      case '$lt':
      case '$lte':
        if (!compareOp(actual, op, operand)) return false;
        break;
      case '$in':
        if (!(operand as unknown[]).some((o) => matchesEq(actual, o))) return false;
        break;
      case '$nin':
        if ((operand as unknown[]).some((o) => matchesEq(actual, o))) return false;
        break;
      case '$exists':
        if ((actual !== undefined) !== Boolean(operand)) return false;
        break;
      case '$regex': {
        const flags = typeof condition.$options === 'string' ? condition.$options : '';
        const re = operand instanceof RegExp ? operand : new RegExp(String(operand), flags);
        const values = Array.isArray(actual) ? actual : [actual];
        if (!values.some((v) => typeof v === 'string' && re.test(v))) return false;
        break;
      }
      case '$options':
        break;
      default:
        throw new Error(`unsupported filter operator ${op}`);
    }
  }
  return true;
}

export function matches(doc: unknown, filter: Filter = {}): boolean {
  for (const [key, condition] of Object.entries(filter)) {
    if (key === '$and') {
      if (!(condition as Filter[]).every((f) => matches(doc, f))) return false;
    } else if (key === '$or') {
      if (!(condition as Filter[]).some((f) => matches(doc, f))) return false;
    } else if (key === '$nor') {
      if ((condition as Filter[]).some((f) => matches(doc, f))) return false;
    } else if (key.startsWith('$')) {
      throw new Error(`unsupported filter operator ${key}`);
    } else {
      const candidates = getPathValues(doc, key);
      const negative = isOperatorObject(condition) && ('$ne' in condition || '$nin' in condition);
      // a negative condition must hold for every reachable value, a positive one for any
      const ok = negative
        ? candidates.every((v) => matchesField(v, condition))
        : candidates.some((v) => matchesField(v, condition));
      if (!ok) return false;
    }
  }
  return true;
}

/** MongoDB's cross-type sort order for the types read models store. */
function typeRank(v: unknown): number {
  if (v === undefined || v === null) return 1;
  if (typeof v === 'number') return 2;
  if (typeof v === 'string') return 3;
  if (typeof v === 'object') return 4;
  if (typeof v === 'boolean') return 5;
  return 6;
}

export function compareBy(sort: SortSpec): (a: unknown, b: unknown) => number {
  const keys = Object.entries(sort);
  return (a, b) => {
    for (const [path, dir] of keys) {
      const x = getPath(a, path);
      const y = getPath(b, path);
      const rx = typeRank(x);
      const ry = typeRank(y);
      let c = rx - ry;
      if (c === 0 && rx !== 1)
        c = typeof x === 'object' ? (x! < y! ? -1 : x! > y! ? 1 : 0) : compareValues(x as string, y as string);
      if (c !== 0) return c * dir;
    }
    return 0;
  };
}

/**
 * The strings that start with `prefix`, as a range filter in the port's code point order:
 * `{ $gte: prefix, $lt: <prefix with its last character incremented> }` (no upper bound for '').
 * `prefix + '\uffff'` is no bound: in UTF-8 order every character above U+FFFF (emoji) sorts after it.
 */
export function prefixRange(prefix: string): { $gte: string; $lt?: string } {
  const points = [...prefix];
  while (points.length) {
    const last = points.pop()!.codePointAt(0)!;
    if (last < 0x10ffff) {
      const next = last + 1 === 0xd800 ? 0xe000 : last + 1;
      return { $gte: prefix, $lt: points.join('') + String.fromCodePoint(next) };
    }
  }
  return { $gte: prefix };
}

/**
 * A deep copy of a JSON value (documents are JSON: objects, arrays, strings, numbers, booleans,
 * null). Several times faster than structuredClone for the small documents read models hold,
 * which the in-memory store and the unit of work copy on every read and write.
 */
/** The named top-level fields of `doc` (those it has), in that order; values shared, not copied. */
export function pickFields(doc: Record<string, unknown>, fields: readonly string[]): Document {
  const out: Record<string, unknown> = {};
  for (const f of fields) {
    const v = doc[f];
    if (v !== undefined) out[f] = v;
  }
  return out as Document;
}

export function cloneJson<T>(value: T): T {
  if (value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map(cloneJson) as T;
  const out: Record<string, unknown> = {};
  for (const key in value) {
    const v = (value as Record<string, unknown>)[key];
    if (v !== undefined) out[key] = cloneJson(v);
  }
  return out as T;
}
