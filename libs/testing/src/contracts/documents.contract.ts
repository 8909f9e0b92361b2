/**
 * The DocumentStore contract: every adapter (in-memory, MongoDB) must pass it. MongoDB is the
 * reference for the filter semantics, so expectations here are what MongoDB answers.
 *
 * Each test uses freshly named collections, so the suite can run against a shared server.
 */
import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, it } from 'node:test';
import {
  type Collection,
  type Document,
  type DocumentStore,
  DuplicateKeyError,
  type Filter,
  InvalidDocumentError,
  prefixRange,
  WriteBehind,
  type Write,
} from '@burrow/documents';
import { rejection, uniqueId } from './util.js';

export interface DocumentStoreFixture {
  store: DocumentStore;
  cleanup(): Promise<void>;
}
export type DocumentStoreFactory = () => Promise<DocumentStoreFixture>;

interface Person extends Document {
  name: string;
  age?: number | string;
  city?: string | null;
  tags?: string[];
  active?: boolean;
  nickname?: string;
  profile: { level?: number; country: string };
  items?: { sku: string; qty: number }[];
}

const PEOPLE: Person[] = [
  {
    _id: 'p1',
    name: 'Alice',
    age: 30,
    city: 'Oslo',
    tags: ['admin', 'dev'],
    active: true,
    profile: { level: 3, country: 'NO' },
    items: [
      { sku: 'a', qty: 1 },
      { sku: 'b', qty: 5 },
    ],
  },
  {
    _id: 'p2',
    name: 'bob',
    age: 25,
    city: 'Bergen',
    tags: ['dev'],
    active: false,
    profile: { level: 1, country: 'NO' },
    items: [{ sku: 'b', qty: 2 }],
  },
  {
    _id: 'p3',
    name: 'Carol',
    age: 35,
    city: null,
    tags: [],
    active: true,
    profile: { level: 2, country: 'SE' },
    items: [],
  },
  // no city, no active, no items, no profile.level; age is a string
  { _id: 'p4', name: 'dave', age: '40', tags: ['ops'], profile: { country: 'DK' } },
  {
    _id: 'p5',
    name: 'Eve',
    age: 22,
    city: 'Oslo',
    tags: ['admin'],
    active: true,
    nickname: 'evil',
    profile: { level: 3, country: 'SE' },
  },
];

/** [description, filter, ids MongoDB returns] */
const FILTER_CASES: [string, Filter, string[]][] = [
  ['empty filter', {}, ['p1', 'p2', 'p3', 'p4', 'p5']],
  ['equality', { city: 'Oslo' }, ['p1', 'p5']],
  ['equality is case-sensitive', { name: 'alice' }, []],
  ['equality on _id', { _id: 'p3' }, ['p3']],
  ['equality on a missing field', { nope: 'x' }, []],
  ['dotted path', { 'profile.country': 'NO' }, ['p1', 'p2']],
  ['dotted path, number', { 'profile.level': 3 }, ['p1', 'p5']],
  ['array membership', { tags: 'admin' }, ['p1', 'p5']],
  ['array membership (2)', { tags: 'dev' }, ['p1', 'p2']],
  ['boolean', { active: true }, ['p1', 'p3', 'p5']],
  ['boolean false', { active: false }, ['p2']],
  ['null matches null and missing', { city: null }, ['p3', 'p4']],
  ['$eq', { city: { $eq: 'Bergen' } }, ['p2']],
  ['$eq null', { city: { $eq: null } }, ['p3', 'p4']],
  ['$ne', { age: { $ne: 30 } }, ['p2', 'p3', 'p4', 'p5']],
  ['$ne null', { city: { $ne: null } }, ['p1', 'p2', 'p5']],
  ['$ne matches a missing field', { active: { $ne: true } }, ['p2', 'p4']],
  ['$ne on an array excludes any member', { tags: { $ne: 'admin' } }, ['p2', 'p3', 'p4']],
  ['$gt compares numbers only with numbers', { age: { $gt: 25 } }, ['p1', 'p3']],
  ['$gte', { age: { $gte: 25 } }, ['p1', 'p2', 'p3']],
  ['$lt', { age: { $lt: 25 } }, ['p5']],
  ['$lte', { age: { $lte: 25 } }, ['p2', 'p5']],
  ['a range on one field', { age: { $gte: 22, $lt: 30 } }, ['p2', 'p5']],
  ['$gt compares strings only with strings', { age: { $gt: '3' } }, ['p4']],
  ['string order is binary (upper case before lower case)', { name: { $gt: 'a' } }, ['p2', 'p4']],
  ['$lt on strings', { name: { $lt: 'D' } }, ['p1', 'p3']],
  ['$gt on a dotted path', { 'profile.level': { $gt: 1 } }, ['p1', 'p3', 'p5']],
  ['$in', { city: { $in: ['Oslo', 'Bergen'] } }, ['p1', 'p2', 'p5']],
  ['$in with null matches missing', { city: { $in: [null] } }, ['p3', 'p4']],
  ['$in against an array field', { tags: { $in: ['ops', 'dev'] } }, ['p1', 'p2', 'p4']],
  ['$in on _id', { _id: { $in: ['p1', 'p9'] } }, ['p1']],
  ['$in with an empty list', { city: { $in: [] } }, []],
  ['$nin', { city: { $nin: ['Oslo'] } }, ['p2', 'p3', 'p4']],
  ['$nin against an array field', { tags: { $nin: ['admin'] } }, ['p2', 'p3', 'p4']],
  ['$exists true (null exists)', { city: { $exists: true } }, ['p1', 'p2', 'p3', 'p5']],
  ['$exists false', { city: { $exists: false } }, ['p4']],
  ['$exists on a dotted path', { 'profile.level': { $exists: false } }, ['p4']],
  ['$exists on a sometimes-present field', { nickname: { $exists: true } }, ['p5']],
  ['$regex', { name: { $regex: 'o' } }, ['p2', 'p3']],
  ['$regex anchored, case-sensitive', { name: { $regex: '^a' } }, []],
  ['$regex with $options i', { name: { $regex: '^a', $options: 'i' } }, ['p1']],
  ['$regex with $options i (2)', { name: { $regex: 'E', $options: 'i' } }, ['p1', 'p4', 'p5']],
  ['$regex against an array field', { tags: { $regex: '^op' } }, ['p4']],
  ['$regex never matches non-strings', { age: { $regex: '3' } }, []],
  ['several fields (implicit and)', { city: 'Oslo', active: true, age: { $gt: 25 } }, ['p1']],
  ['$and', { $and: [{ tags: 'admin' }, { 'profile.country': 'SE' }] }, ['p5']],
  ['$or', { $or: [{ city: 'Bergen' }, { age: { $gt: 33 } }] }, ['p2', 'p3']],
  [
    '$and with a nested $or',
    { $and: [{ age: { $gt: 20 } }, { $or: [{ city: 'Oslo' }, { active: false }] }] },
    ['p1', 'p2', 'p5'],
  ],
  ['$or next to a field', { 'profile.country': 'NO', $or: [{ age: 25 }, { age: 99 }] }, ['p2']],
];

/**
 * Sort keys of every type SQLite orders as MongoDB does (missing, null, numbers, strings), in group
 * 'a', and two documents of group 'b'; with the orders MongoDB gives them, ties broken by `_id`.
 */
export const MIXED_KEYS: (Document & { g: string; k?: unknown })[] = [
  { _id: 'n0', g: 'a' },
  { _id: 'n1', g: 'a', k: null },
  { _id: 'n2', g: 'a', k: 5 },
  { _id: 'n3', g: 'a', k: -1 },
  { _id: 'n4', g: 'a', k: 2.5 },
  { _id: 'n5', g: 'a', k: 'b' },
  { _id: 'n6', g: 'a', k: 'a' },
  { _id: 'n7', g: 'a', k: 'B' },
  { _id: 'n8', g: 'a', k: 10 },
  // after '{': a JSON object read as text by SQL would sort before it
  { _id: 'n9', g: 'a', k: '~' },
  { _id: 'm0', g: 'b', k: 3 },
];
export const MIXED_ASCENDING = ['n0', 'n1', 'n3', 'n4', 'n2', 'n8', 'n7', 'n6', 'n5', 'n9'];
export const MIXED_DESCENDING = ['n9', 'n5', 'n6', 'n7', 'n8', 'n2', 'n4', 'n3', 'n0', 'n1'];
/** After n2's key becomes an object and n3's a boolean: objects after strings, booleans after objects. */
export const RETYPED_ASCENDING = ['n0', 'n1', 'n4', 'n8', 'n7', 'n6', 'n5', 'n9', 'n2', 'n3'];
export const RETYPED_DESCENDING = ['n3', 'n2', 'n9', 'n5', 'n6', 'n7', 'n8', 'n4', 'n0', 'n1'];

/** Every page of `expected` (every offset, a few page sizes, past the end) is what `find` answers. */
export async function assertPages(
  c: Collection,
  filter: Filter,
  sort: Record<string, 1 | -1>,
  expected: string[],
  label = '',
): Promise<void> {
  for (let skip = 0; skip <= expected.length + 1; skip++) {
    for (const limit of [1, 3, 0]) {
      const page = (await c.find(filter, { sort, skip, ...(limit ? { limit } : {}) })).map((d) => d._id);
      assert.deepEqual(
        page,
        expected.slice(skip, limit ? skip + limit : undefined),
        `${label} ${JSON.stringify({ filter, sort, skip, limit })}`,
      );
    }
  }
}

export function documentStoreContract(name: string, factory: DocumentStoreFactory | null, skipReason?: string): void {
  if (!factory) {
    describe(`DocumentStore contract: ${name}`, { skip: skipReason ?? 'no adapter factory' }, () => undefined);
    return;
  }

  // The bound is the whole suite's (node's runner times a describe as one): on a FerretDB shared by
  // files running side by side, on a loaded 2-core machine, the suite took over a minute (its 16 MiB
  // batch alone 27 s). Five minutes still ends a hang well inside the file's own bound.
  describe(`DocumentStore contract: ${name}`, { timeout: 300_000 }, () => {
    let fixture: DocumentStoreFixture;
    let store: DocumentStore;
    let people: Collection<Person>;
    let cname: string;

    const ids = (docs: Document[]) => docs.map((d) => d._id);
    const sortedIds = (docs: Document[]) => ids(docs).sort();

    beforeEach(async () => {
      fixture = await factory();
      store = fixture.store;
      cname = uniqueId('people_');
      people = store.collection<Person>(cname);
      for (const p of PEOPLE) await people.upsert(structuredClone(p));
    });

    afterEach(async () => {
      await fixture.cleanup();
    });

    describe('get, find, findOne, count', () => {
      it('gets a document by _id exactly as stored, or null', async () => {
        assert.deepEqual(await people.get('p1'), PEOPLE[0]);
        assert.deepEqual(await people.get('p4'), PEOPLE[3]);
        assert.equal(await people.get('nope'), null);
      });

      for (const [description, filter, expected] of FILTER_CASES) {
        it(`find: ${description} ${JSON.stringify(filter)}`, async () => {
          assert.deepEqual(sortedIds(await people.find(filter)), expected);
          assert.equal(await people.count(filter), expected.length, 'count agrees with find');
        });
      }

      it('every filter answers the same with its fields indexed (stores that push filters down to an index)', async () => {
        for (const fields of [
          ['name'],
          ['age'],
          ['city', 'name'],
          ['tags'],
          ['active'],
          ['profile.country', 'profile.level'],
          ['nickname'],
          ['items.sku'],
        ]) {
          await people.ensureIndex(Object.fromEntries(fields.map((f) => [f, 1])));
        }
        for (const [description, filter, expected] of FILTER_CASES) {
          assert.deepEqual(sortedIds(await people.find(filter)), expected, description);
          assert.equal(await people.count(filter), expected.length, `count: ${description}`);
          assert.deepEqual(
            sortedIds(await people.find(filter, { sort: { name: 1 }, limit: 2 })),
            [...expected]
              .sort((a, b) => PEOPLE.findIndex((p) => p._id === a) - PEOPLE.findIndex((p) => p._id === b))
              .map((id) => PEOPLE.find((p) => p._id === id)!)
              .sort((a, b) => (a.name < b.name ? -1 : 1))
              .slice(0, 2)
              .map((p) => p._id)
              .sort(),
            `page: ${description}`,
          );
        }
        assert.deepEqual(sortedIds(await people.find({ 'items.sku': 'b' })), ['p1', 'p2']);
        assert.deepEqual(ids(await people.find({ active: true }, { sort: { city: 1, name: -1 } })), ['p3', 'p5', 'p1']);
        assert.deepEqual(
          ids(await people.find({}, { sort: { active: 1, name: 1 } })),
          ['p4', 'p2', 'p1', 'p3', 'p5'],
          'missing, then false, then true',
        );
        const deleted = await people.deleteMany({ tags: 'admin' });
        assert.equal(deleted, 2);
        assert.deepEqual(sortedIds(await people.find()), ['p2', 'p3', 'p4']);
      });

      it('pages through an indexed range in order, after a cursor', async () => {
        const files = store.collection<Document & { folder: string; name: string; deleted: boolean }>(
          uniqueId('files_'),
        );
        await files.ensureIndex({ folder: 1, deleted: 1, name: 1 });
        for (let n = 0; n < 40; n++)
          await files.upsert({
            _id: `f${n}`,
            folder: n % 2 ? 'a' : 'b',
            deleted: n % 5 === 0,
            name: `n${String((n * 7) % 40).padStart(2, '0')}`,
          });
        const expected = (await files.find({ folder: 'a', deleted: false })).map((f) => f.name).sort();
        const seen: string[] = [];
        for (let after = ''; ;) {
          const page = await files.find(
            { folder: 'a', deleted: false, name: { $gt: after } },
            { sort: { name: 1 }, limit: 3 },
          );
          if (page.length === 0) break;
          seen.push(...page.map((f) => f.name));
          after = page[page.length - 1].name;
        }
        assert.deepEqual(seen, expected);
        assert.equal(await files.count({ folder: 'a', deleted: false }), expected.length);
        assert.equal(expected.length, 16);
      });

      it('find: a dotted path reaches into an array of subdocuments', async () => {
        assert.deepEqual(sortedIds(await people.find({ 'items.sku': 'b' })), ['p1', 'p2']);
        assert.deepEqual(sortedIds(await people.find({ 'items.qty': { $gt: 4 } })), ['p1']);
        assert.deepEqual(sortedIds(await people.find({ 'items.sku': { $in: ['a'] } })), ['p1']);
      });

      it('find without a filter returns everything', async () => {
        assert.deepEqual(sortedIds(await people.find()), ['p1', 'p2', 'p3', 'p4', 'p5']);
      });

      it('findOne returns a match or null', async () => {
        assert.deepEqual(await people.findOne({ city: 'Bergen' }), PEOPLE[1]);
        const any = await people.findOne({ tags: 'admin' });
        assert.ok(any && ['p1', 'p5'].includes(any._id));
        assert.equal(await people.findOne({ city: 'Nowhere' }), null);
      });

      it('counts', async () => {
        assert.equal(await people.count(), 5);
        assert.equal(await people.count({}), 5);
        assert.equal(await people.count({ city: 'Oslo' }), 2);
        assert.equal(await people.count({ tags: 'nothing' }), 0);
        assert.equal(await store.collection(uniqueId('empty_')).count(), 0, 'a collection never written is empty');
      });

      it('find with fields: only those top-level fields (those a document has), _id only when named; filter and sort see whole documents', async () => {
        const picked = await people.find(
          { city: 'Oslo' },
          { sort: { age: 1 }, fields: ['name', 'nickname', 'profile'] },
        );
        assert.deepEqual(picked, [
          { name: 'Eve', nickname: 'evil', profile: { level: 3, country: 'SE' } },
          { name: 'Alice', profile: { level: 3, country: 'NO' } },
        ]);
        assert.deepEqual(await people.find({ _id: 'p1' }, { fields: ['_id', 'age'] }), [{ _id: 'p1', age: 30 }]);
        const indexed = store.collection<Document & { g: string; n: number; on: boolean }>(uniqueId('picked_'));
        await indexed.ensureIndex({ g: 1, on: 1, n: 1 });
        for (let i = 0; i < 5; i++) await indexed.upsert({ _id: `i${i}`, g: 'a', on: i !== 2, n: 10 - i });
        assert.deepEqual(
          await indexed.find({ g: 'a', on: true }, { sort: { n: 1 }, skip: 1, limit: 2, fields: ['n'] }),
          [{ n: 7 }, { n: 9 }],
        );
      });

      it('a boolean on an indexed path matches booleans only, never the numbers 0 and 1: found, paged, counted, also once a number is stored there later', async () => {
        const flags = store.collection<Document & { g: string; on: unknown; n: number }>(uniqueId('flags_'));
        await flags.ensureIndex({ g: 1, on: 1, n: 1 });
        await flags.ensureIndex({ on: 1 });
        for (let i = 0; i < 6; i++) await flags.upsert({ _id: `f${i}`, g: 'a', on: i % 2 === 0, n: i });
        const page = async (on: boolean, skip: number, limit: number) =>
          ids(await flags.find({ g: 'a', on }, { sort: { n: 1 }, skip, limit }));
        assert.deepEqual(await page(false, 0, 2), ['f1', 'f3']);
        assert.deepEqual(await page(true, 1, 5), ['f2', 'f4']);
        await flags.upsert({ _id: 'z0', g: 'a', on: 0, n: 0.5 });
        await flags.upsert({ _id: 'z1', g: 'a', on: 1, n: 1.5 });
        await flags.upsert({ _id: 'z2', g: 'a', on: 1.0, n: 2.5 });
        assert.deepEqual(await page(false, 0, 2), ['f1', 'f3'], 'the number 0 is not false');
        assert.deepEqual(await page(true, 0, 0), ['f0', 'f2', 'f4'], 'the numbers 1 are not true');
        assert.deepEqual(await page(false, 1, 0), ['f3', 'f5']);
        assert.equal(await flags.count({ g: 'a', on: false }), 3);
        assert.equal(await flags.count({ on: true }), 3);
        assert.deepEqual(sortedIds(await flags.find({ on: { $eq: false } })), ['f1', 'f3', 'f5']);
        assert.deepEqual(sortedIds(await flags.find({ on: 0 })), ['z0'], 'and a number matches numbers only');
        assert.deepEqual(sortedIds(await flags.find({ on: 1 })), ['z1', 'z2']);
        assert.equal(await flags.deleteMany({ on: false }), 3);
        assert.deepEqual(sortedIds(await flags.find({ g: 'a' })), ['f0', 'f2', 'f4', 'z0', 'z1', 'z2']);
      });

      it('a sparse index: a value is found through it, documents without one by any other query; a field filled in later is found', async () => {
        const previews = store.collection<Document & { k: string; p: { w?: string }; pending: boolean }>(
          uniqueId('sparse_'),
        );
        await previews.ensureIndex({ 'p.w': 1 }, { sparse: true });
        await previews.ensureIndex({ 'p.w': 1 }, { sparse: true }); // idempotent
        for (let i = 0; i < 6; i++)
          await previews.upsert({ _id: `b${i}`, k: 'x', p: i % 3 === 0 ? { w: `key${i}` } : {}, pending: i % 3 !== 0 });
        assert.deepEqual(ids(await previews.find({ 'p.w': 'key3' })), ['b3']);
        assert.equal(await previews.findOne({ 'p.w': 'key1' }), null);
        assert.deepEqual(sortedIds(await previews.find({ 'p.w': { $gte: 'key' } })), ['b0', 'b3']);
        assert.deepEqual(
          sortedIds(await previews.find({ 'p.w': null })),
          ['b1', 'b2', 'b4', 'b5'],
          'missing: not in the index, still found',
        );
        await previews.upsert({ _id: 'b1', k: 'x', p: { w: 'key1' }, pending: false });
        assert.deepEqual(ids(await previews.find({ 'p.w': 'key1' })), ['b1'], 'a value set later is in the index');
        await previews.upsert({ _id: 'b3', k: 'x', p: {}, pending: true });
        assert.equal(await previews.findOne({ 'p.w': 'key3' }), null, 'a value taken away leaves it');
      });

      it('dropIndex: idempotent (also for an index never made); queries on its fields stay right; another index on the same fields stays', async () => {
        const files = store.collection<Document & { d: string; deleted: boolean; at: number | null }>(
          uniqueId('dropped_'),
        );
        await files.ensureIndex({ deleted: 1, at: 1 });
        await files.ensureIndex({ d: 1, deleted: 1, at: 1 });
        await files.ensureIndex({ at: 1 }, { sparse: true });
        for (let i = 0; i < 8; i++)
          await files.upsert({ _id: `f${i}`, d: `d${i % 2}`, deleted: i % 4 === 0, at: i % 4 === 0 ? i : null });
        await files.dropIndex({ deleted: 1, at: 1 });
        await files.dropIndex({ deleted: 1, at: 1 });
        await files.dropIndex({ nothing: 1 });
        await store.collection(uniqueId('never_')).dropIndex({ a: 1 });
        assert.deepEqual(ids(await files.find({ deleted: true, at: { $lte: 10 } }, { sort: { at: 1 } })), ['f0', 'f4']);
        assert.deepEqual(ids(await files.find({ d: 'd0', deleted: true }, { sort: { at: -1 } })), ['f4', 'f0']);
        assert.equal(await files.count({ deleted: false }), 6);
        assert.deepEqual(ids(await files.find({ at: 4 })), ['f4']);
        await files.dropIndex({ at: 1 }, { sparse: true });
        assert.deepEqual(ids(await files.find({ at: 4 })), ['f4']);
        const unique = store.collection<Document & { u: string }>(uniqueId('unique_'));
        await unique.ensureIndex({ u: 1 }, { unique: true });
        await unique.upsert({ _id: 'a', u: 'same' });
        await unique.dropIndex({ u: 1 }, { unique: true });
        await unique.upsert({ _id: 'b', u: 'same' });
        assert.equal(await unique.count({ u: 'same' }), 2, 'a unique index dropped refuses nothing');
      });
    });

    describe('sort, skip, limit', () => {
      const numericAge = { age: { $gte: 0 } };

      it('sorts ascending and descending', async () => {
        assert.deepEqual(ids(await people.find(numericAge, { sort: { age: 1 } })), ['p5', 'p2', 'p1', 'p3']);
        assert.deepEqual(ids(await people.find(numericAge, { sort: { age: -1 } })), ['p3', 'p1', 'p2', 'p5']);
      });

      it('sorts strings by binary order (upper case first)', async () => {
        assert.deepEqual(ids(await people.find({}, { sort: { name: 1 } })), ['p1', 'p3', 'p5', 'p2', 'p4']);
        assert.deepEqual(ids(await people.find({}, { sort: { name: -1 } })), ['p4', 'p2', 'p5', 'p3', 'p1']);
      });

      it('sorts by several keys, null and missing first', async () => {
        // city: null (p3) and missing (p4) tie and come first; the tie breaks on name descending
        assert.deepEqual(ids(await people.find({}, { sort: { city: 1, name: -1 } })), ['p4', 'p3', 'p2', 'p5', 'p1']);
        assert.deepEqual(ids(await people.find({}, { sort: { city: -1, name: 1 } })), ['p1', 'p5', 'p2', 'p3', 'p4']);
      });

      it('sorts by dotted paths', async () => {
        assert.deepEqual(ids(await people.find({}, { sort: { 'profile.country': -1, 'profile.level': 1 } })), [
          'p3',
          'p5',
          'p2',
          'p1',
          'p4',
        ]);
      });

      it('skips and limits after sorting', async () => {
        const byName = { sort: { name: 1 } } as const;
        assert.deepEqual(ids(await people.find({}, { ...byName, limit: 2 })), ['p1', 'p3']);
        assert.deepEqual(ids(await people.find({}, { ...byName, skip: 1, limit: 2 })), ['p3', 'p5']);
        assert.deepEqual(ids(await people.find({}, { ...byName, skip: 4 })), ['p4']);
        assert.deepEqual(ids(await people.find({}, { ...byName, skip: 10 })), []);
        assert.deepEqual(ids(await people.find({ city: 'Oslo' }, { ...byName, skip: 1, limit: 5 })), ['p5']);
        assert.equal((await people.find({}, { limit: 3 })).length, 3);
      });

      it('pages through a larger collection without gaps or repeats', async () => {
        const many = store.collection<Document & { n: number }>(uniqueId('many_'));
        for (let n = 0; n < 57; n++) await many.upsert({ _id: `d${String(n).padStart(3, '0')}`, n: (n * 37) % 57 });
        const seen: number[] = [];
        for (let skip = 0; ; skip += 10) {
          const page = await many.find({}, { sort: { n: 1 }, skip, limit: 10 });
          if (page.length === 0) break;
          seen.push(...page.map((d) => d.n));
        }
        assert.deepEqual(
          seen,
          Array.from({ length: 57 }, (_, i) => i),
        );
      });

      it('pages at every offset through mixed sort key types, ascending, descending, by several keys', async () => {
        const c = store.collection(uniqueId('mixed_'));
        await c.ensureIndex({ g: 1, k: 1 });
        for (const d of MIXED_KEYS) await c.upsert(structuredClone(d));
        await assertPages(c, { g: 'a' }, { k: 1, _id: 1 }, MIXED_ASCENDING);
        await assertPages(c, { g: 'a' }, { k: -1, _id: 1 }, MIXED_DESCENDING);
        await assertPages(c, { g: 'a', k: { $gte: 'a' } }, { k: 1 }, ['n6', 'n5', 'n9']);
        await assertPages(c, { g: 'a' }, { _id: -1 }, [...MIXED_ASCENDING].sort().reverse());
        await assertPages(c, {}, { k: 1, _id: 1 }, ['n0', 'n1', 'n3', 'n4', 'm0', 'n2', 'n8', 'n7', 'n6', 'n5', 'n9']);
        // a boolean in group 'b': after all the others in a sort over every group, no change to group 'a'
        await c.upsert({ _id: 'm1', g: 'b', k: true });
        await assertPages(c, {}, { k: 1, _id: 1 }, [
          'n0',
          'n1',
          'n3',
          'n4',
          'm0',
          'n2',
          'n8',
          'n7',
          'n6',
          'n5',
          'n9',
          'm1',
        ]);
        await assertPages(c, { g: 'a' }, { k: -1, _id: 1 }, MIXED_DESCENDING);
      });

      it('a page at an offset stays right when a sort key turns boolean or object after it was first read, and back', async () => {
        const name = uniqueId('retyped_');
        const c = store.collection(name);
        await c.ensureIndex({ g: 1, k: 1 });
        for (const d of MIXED_KEYS) await c.upsert(structuredClone(d));
        await assertPages(c, { g: 'a' }, { k: 1, _id: 1 }, MIXED_ASCENDING, 'before');
        await c.upsert({ _id: 'n3', g: 'a', k: true });
        await assertPages(
          c,
          { g: 'a' },
          { k: 1, _id: 1 },
          ['n0', 'n1', 'n4', 'n2', 'n8', 'n7', 'n6', 'n5', 'n9', 'n3'],
          'a boolean',
        );
        // as projections write: in a commit
        await store.commit(name, 0, {}, [{ kind: 'put', collection: name, doc: { _id: 'n2', g: 'a', k: { x: 1 } } }]);
        await assertPages(c, { g: 'a' }, { k: 1, _id: 1 }, RETYPED_ASCENDING, 'and an object');
        await assertPages(c, { g: 'a' }, { k: -1, _id: 1 }, RETYPED_DESCENDING, 'and an object');
        await c.upsert({ _id: 'n3', g: 'a', k: -1 });
        await store.commit(name, 1, {}, [{ kind: 'put', collection: name, doc: { _id: 'n2', g: 'a', k: 5 } }]);
        await assertPages(c, { g: 'a' }, { k: 1, _id: 1 }, MIXED_ASCENDING, 'back');
      });

      it('a sort key that was boolean before the first page at an offset is read', async () => {
        const c = store.collection(uniqueId('early_'));
        await c.ensureIndex({ g: 1, k: 1 });
        for (const d of MIXED_KEYS) await c.upsert(structuredClone(d));
        await c.upsert({ _id: 'n3', g: 'a', k: true });
        await c.upsert({ _id: 'n2', g: 'a', k: { x: 1 } });
        await assertPages(c, { g: 'a' }, { k: -1, _id: 1 }, RETYPED_DESCENDING);
      });

      it('skips among matches SQL cannot tell alone (array fields, unindexed conditions)', async () => {
        const c = store.collection(uniqueId('loose_'));
        await c.ensureIndex({ g: 1, k: 1 });
        await c.ensureIndex({ tags: 1 });
        for (const d of MIXED_KEYS)
          await c.upsert({
            ...structuredClone(d),
            tags: Number(d._id.slice(1)) % 2 ? ['odd', 'x'] : 'even',
            h: Number(d._id.slice(1)) % 3,
          });
        await assertPages(
          c,
          { g: 'a', tags: 'odd' },
          { k: 1, _id: 1 },
          MIXED_ASCENDING.filter((id) => Number(id.slice(1)) % 2),
        );
        await assertPages(
          c,
          { g: 'a', h: { $ne: 0 } },
          { k: -1, _id: 1 },
          MIXED_DESCENDING.filter((id) => Number(id.slice(1)) % 3),
        );
        await assertPages(c, { g: 'a', tags: { $in: ['even', 'x'] } }, { k: 1, _id: 1 }, MIXED_ASCENDING);
      });
    });

    describe('writes', () => {
      it('upsert inserts, then replaces the whole document', async () => {
        await people.upsert({ _id: 'p1', name: 'Alice II', profile: { country: 'FI' } });
        assert.deepEqual(await people.get('p1'), { _id: 'p1', name: 'Alice II', profile: { country: 'FI' } });
        assert.equal(await people.count(), 5);
        assert.deepEqual(sortedIds(await people.find({ tags: 'admin' })), ['p5'], 'old fields no longer match');
        await people.upsert({ _id: 'p6', name: 'Frank', profile: { country: 'IS' } });
        assert.equal(await people.count(), 6);
      });

      it('stores copies: later changes to objects do not leak in or out', async () => {
        const doc: Person = { _id: 'p7', name: 'Gina', tags: ['x'], profile: { country: 'NO' } };
        await people.upsert(doc);
        doc.name = 'changed after upsert';
        doc.tags!.push('y');
        const got = (await people.get('p7'))!;
        assert.equal(got.name, 'Gina');
        assert.deepEqual(got.tags, ['x']);
        got.profile.country = 'changed after get';
        const found = await people.find({ _id: 'p7' });
        found[0].tags!.push('z');
        assert.deepEqual(await people.get('p7'), { _id: 'p7', name: 'Gina', tags: ['x'], profile: { country: 'NO' } });
      });

      it('keeps collections apart', async () => {
        const other = store.collection<Document & { v: number }>(uniqueId('other_'));
        await other.upsert({ _id: 'p1', v: 1 });
        assert.deepEqual(await other.get('p1'), { _id: 'p1', v: 1 });
        assert.equal((await people.get('p1'))!.name, 'Alice');
        assert.equal(await other.count(), 1);
      });

      it('delete removes one document and says whether it existed', async () => {
        assert.equal(await people.delete('p2'), true);
        assert.equal(await people.get('p2'), null);
        assert.equal(await people.delete('p2'), false);
        assert.equal(await people.delete('never'), false);
        assert.equal(await people.count(), 4);
      });

      it('deleteMany removes the matches and counts them', async () => {
        assert.equal(await people.deleteMany({ city: 'Oslo' }), 2);
        assert.deepEqual(sortedIds(await people.find()), ['p2', 'p3', 'p4']);
        assert.equal(await people.deleteMany({ city: 'Oslo' }), 0);
        assert.equal(await people.deleteMany({ tags: { $in: ['ops', 'dev'] } }), 2);
        assert.deepEqual(sortedIds(await people.find()), ['p3']);
      });

      it('round-trips JSON values exactly', async () => {
        const weird = store.collection(uniqueId('json_'));
        const doc = {
          _id: 'w1',
          text: 'quotes " and \\ and\nnewline',
          unicode: 'Ærø – 東京 – 🐇',
          float: 0.1,
          negative: -3,
          big: Number.MAX_SAFE_INTEGER,
          yes: true,
          nothing: null,
          list: [1, 'two', { three: [3] }, { four: 4 }, null],
          nested: { a: { b: { c: [] } }, empty: {} },
        };
        await weird.upsert(structuredClone(doc));
        assert.deepEqual(await weird.get('w1'), doc);
      });
    });

    it('refuses an array directly inside an array (FerretDB cannot store one), on upsert and in a commit', async () => {
      const c = store.collection(uniqueId('nested_'));
      const error = await rejection(c.upsert({ _id: 'n1', list: [1, [2]] }));
      assert.ok(error instanceof InvalidDocumentError, `expected InvalidDocumentError, got ${String(error)}`);
      const name = uniqueId('cp_');
      const batch = await rejection(
        store.commit(name, 0, {}, [
          { kind: 'put', collection: uniqueId('nested_'), doc: { _id: 'n2', m: { list: [[1]] } } },
        ]),
      );
      assert.ok(batch instanceof InvalidDocumentError);
      assert.equal(await store.readCheckpoint(name), null, 'nothing of the batch was committed');
    });

    describe('strings in code point (UTF-8) order', () => {
      // U+FF5E (fullwidth tilde) is above every surrogate in UTF-16 but below every emoji in UTF-8
      const names = ['a', 'a/z', 'a/\uff5e', 'a/\u{1F407}', 'a0', 'b'];

      it('sorts and compares strings by code point, emoji after U+FFFF', async () => {
        const c = store.collection<Document & { p: string }>(uniqueId('utf8_'));
        for (const [i, p] of [...names].reverse().entries()) await c.upsert({ _id: `d${i}`, p });
        assert.deepEqual(
          (await c.find({}, { sort: { p: 1 } })).map((d) => d.p),
          names,
        );
        assert.deepEqual(
          (await c.find({ p: { $gt: 'a/\uffff' } }, { sort: { p: 1 } })).map((d) => d.p),
          ['a/\u{1F407}', 'a0', 'b'],
        );
      });

      it('prefixRange finds every path under a prefix, emoji included, and nothing beside it', async () => {
        const c = store.collection<Document & { p: string }>(uniqueId('prefix_'));
        for (const [i, p] of names.entries()) await c.upsert({ _id: `d${i}`, p });
        await c.upsert({ _id: 'deep', p: 'a/\u{1F407}/\u{10FFFF}' });
        assert.deepEqual(
          (await c.find({ p: prefixRange('a/') }, { sort: { p: 1 } })).map((d) => d.p),
          ['a/z', 'a/\uff5e', 'a/\u{1F407}', 'a/\u{1F407}/\u{10FFFF}'],
        );
        assert.deepEqual(
          (await c.find({ p: prefixRange('a/\u{1F407}/') })).map((d) => d.p),
          ['a/\u{1F407}/\u{10FFFF}'],
        );
        assert.equal(await c.count({ p: prefixRange('') }), names.length + 1);
      });
    });

    it('$nor matches documents that match none of its filters', async () => {
      assert.deepEqual(sortedIds(await people.find({ $nor: [{ city: 'Oslo' }, { age: { $gt: 30 } }] })), ['p2', 'p4']);
      assert.equal(await people.count({ $and: [{ active: true }, { $nor: [{ tags: 'admin' }] }] }), 1);
    });

    describe('commit: a batch of writes with a checkpoint', () => {
      const put = (collection: string, doc: Document): Write => ({ kind: 'put', collection, doc });

      it('applies the writes and sets the checkpoint, only from the expected version', async () => {
        const name = uniqueId('cp_');
        const c = uniqueId('docs_');
        assert.equal(await store.readCheckpoint(name), null);
        const first = await store.commit(name, 0, { at: 1 }, [put(c, { _id: 'a', v: 1 }), put(c, { _id: 'b', v: 1 })]);
        assert.deepEqual(first, { committed: true, rejected: [] });
        assert.deepEqual(await store.readCheckpoint(name), { version: 1, state: { at: 1 } });
        assert.equal(await store.collection(c).count(), 2);

        // a second writer that started from version 0 (or from nothing) loses and writes nothing
        assert.equal((await store.commit(name, 0, { at: 9 }, [put(c, { _id: 'z', v: 9 })])).committed, false);
        assert.equal((await store.commit(name, 5, { at: 9 }, [put(c, { _id: 'z', v: 9 })])).committed, false);
        assert.equal(await store.collection(c).get('z'), null);
        assert.deepEqual(await store.readCheckpoint(name), { version: 1, state: { at: 1 } });

        const second = await store.commit(name, 1, { at: 2 }, [
          put(c, { _id: 'a', v: 2 }),
          { kind: 'delete', collection: c, id: 'b' },
        ]);
        assert.equal(second.committed, true);
        assert.deepEqual(await store.collection(c).find({}, { sort: { _id: 1 } }), [{ _id: 'a', v: 2 }]);
        assert.deepEqual(await store.readCheckpoint(name), { version: 2, state: { at: 2 } });
      });

      it('deleteMany goes first; puts after it stay', async () => {
        const name = uniqueId('cp_');
        const c = uniqueId('docs_');
        await store.commit(name, 0, {}, [
          put(c, { _id: 'a', g: 1 }),
          put(c, { _id: 'b', g: 1 }),
          put(c, { _id: 'c', g: 2 }),
        ]);
        await store.commit(name, 1, {}, [
          { kind: 'deleteMany', collection: c, filter: { g: 1 } },
          put(c, { _id: 'b', g: 1, back: true }),
        ]);
        assert.deepEqual(await store.collection(c).find({}, { sort: { _id: 1 } }), [
          { _id: 'b', g: 1, back: true },
          { _id: 'c', g: 2 },
        ]);
      });

      it('clear empties every collection but keeps checkpoints and indexes', async () => {
        const name = uniqueId('cp_');
        const c = uniqueId('docs_');
        const users = store.collection<Document & { email: string }>(c);
        await users.ensureIndex({ email: 1 }, { unique: true });
        await store.commit(name, 0, { n: 1 }, [put(c, { _id: 'u1', email: 'x' })]);
        await store.commit(name, 1, { n: 2 }, [{ kind: 'clear' }, put(c, { _id: 'u2', email: 'y' })]);
        assert.deepEqual(await users.find(), [{ _id: 'u2', email: 'y' }]);
        assert.equal(await people.count(), 0, 'other collections are emptied too');
        assert.deepEqual(await store.readCheckpoint(name), { version: 2, state: { n: 2 } });
        assert.ok(
          (await rejection(users.upsert({ _id: 'u3', email: 'y' }))) instanceof DuplicateKeyError,
          'the unique index is still there',
        );
      });

      it('a put a unique index refuses is reported; the rest of the batch is applied; renames in any order pass', async () => {
        const name = uniqueId('cp_');
        const c = uniqueId('users_');
        const users = store.collection<Document & { email: string }>(c);
        await users.ensureIndex({ email: 1 }, { unique: true });
        await store.commit(name, 0, {}, [put(c, { _id: 'u1', email: 'a' }), put(c, { _id: 'u2', email: 'b' })]);
        // u3 takes a, which u1 gives up later in the same batch
        const renames = await store.commit(name, 1, {}, [
          put(c, { _id: 'u3', email: 'a' }),
          put(c, { _id: 'u1', email: 'c' }),
        ]);
        assert.deepEqual(renames, { committed: true, rejected: [] });
        const clash = await store.commit(name, 2, { done: true }, [
          put(c, { _id: 'u4', email: 'b' }),
          put(c, { _id: 'u5', email: 'e' }),
        ]);
        assert.equal(clash.committed, true);
        assert.deepEqual(
          clash.rejected.map((r) => [r.collection, r.id]),
          [[c, 'u4']],
        );
        assert.deepEqual(
          (await users.find({}, { sort: { _id: 1 } })).map((u) => [u._id, u.email]),
          [
            ['u1', 'c'],
            ['u2', 'b'],
            ['u3', 'a'],
            ['u5', 'e'],
          ],
        );
        assert.deepEqual(await store.readCheckpoint(name), { version: 3, state: { done: true } });
      });
      it('a batch larger than one MongoDB document can hold (16 MiB) commits whole', async () => {
        const name = uniqueId('cp_');
        const c = uniqueId('big_');
        // ~20 MiB of writes, as a live batch of 5,000 read-model documents of 4 KB would be (20
        // documents of 1 MB here: FerretDB takes seconds per thousand upserts)
        const filler = 'x'.repeat(1_000_000);
        const batch = Array.from({ length: 20 }, (_, i) => put(c, { _id: `d${i}`, n: i, filler }));
        assert.deepEqual(await store.commit(name, 0, { at: 1 }, batch), { committed: true, rejected: [] });
        assert.deepEqual(await store.readCheckpoint(name), { version: 1, state: { at: 1 } });
        assert.equal(await store.collection(c).count(), 20);
        assert.deepEqual(await store.collection(c).get('d19'), { _id: 'd19', n: 19, filler });
        // and the next one commits after it
        assert.equal(
          (await store.commit(name, 1, { at: 2 }, [{ kind: 'delete', collection: c, id: 'd0' }])).committed,
          true,
        );
        assert.equal(await store.collection(c).count(), 19);
      });
    });

    describe('WriteBehind over this store (what projections read and write through)', () => {
      it('reads see the pending writes; the store sees nothing until the commit', async () => {
        const uow = new WriteBehind(store);
        const c = uow.collection<Person>(cname);
        await c.upsert({ _id: 'p9', name: 'Zed', age: 50, city: 'Oslo', profile: { country: 'NO' } });
        assert.equal(await c.delete('p1'), true);
        assert.equal(await c.delete('nope'), false);
        const p2 = (await c.get('p2'))!;
        p2.city = 'Oslo';
        await c.upsert(p2);
        assert.deepEqual(ids(await c.find({ city: 'Oslo' }, { sort: { name: 1 } })), ['p5', 'p9', 'p2']);
        assert.deepEqual(ids(await c.find({ city: 'Oslo' }, { sort: { name: 1 }, skip: 1, limit: 1 })), ['p9']);
        assert.equal(await c.count({ city: 'Oslo' }), 3);
        assert.equal(await c.count(), 5);
        assert.equal((await c.findOne({ name: 'Zed' }))?._id, 'p9');
        assert.equal(await people.get('p9'), null, 'nothing reached the store yet');
        assert.equal(await people.count({ city: 'Oslo' }), 2);

        assert.equal(await c.deleteMany({ 'profile.country': 'SE' }), 2);
        assert.equal(await c.get('p3'), null, 'a stored document the pending deleteMany removes is gone');
        assert.deepEqual(sortedIds(await c.find()), ['p2', 'p4', 'p9']);
        await c.upsert({ _id: 'p5', name: 'Eve again', profile: { country: 'SE' } });
        assert.deepEqual(
          sortedIds(await c.find({ 'profile.country': 'SE' })),
          ['p5'],
          'written after the deleteMany: kept',
        );

        const name = uniqueId('cp_');
        assert.equal((await store.commit(name, 0, {}, uow.writes())).committed, true);
        assert.deepEqual(sortedIds(await people.find()), ['p2', 'p4', 'p5', 'p9']);
        assert.equal((await people.get('p2'))!.city, 'Oslo');
        assert.equal((await people.get('p5'))!.name, 'Eve again');
      });

      it('answers every filter over pending documents as the store does, after rewrites, deletes and rollbacks too', async () => {
        const uow = new WriteBehind(store);
        const c = uow.collection<Person>(uniqueId('pending_'));
        // the first equality find on a path indexes the pending documents by it: index every path
        // while the documents hold other values, then rewrite, delete and roll back
        await c.upsert({
          _id: 'p0',
          name: 'Alice',
          city: 'Oslo',
          tags: ['admin'],
          active: true,
          age: 30,
          profile: { level: 3, country: 'NO' },
        });
        for (const p of PEOPLE)
          await c.upsert({
            ...p,
            name: 'x',
            city: 'Bergen',
            tags: ['ops'],
            active: false,
            age: 25,
            profile: { level: 1, country: 'NO' },
          });
        for (const [, filter] of FILTER_CASES) await c.find(filter);
        for (const p of PEOPLE) await c.upsert(p);
        await c.delete('p0');
        const mark = uow.savepoint();
        await c.upsert({
          _id: 'p6',
          name: 'Alice',
          city: 'Oslo',
          tags: ['admin', 'dev', 'ops'],
          active: true,
          age: 25,
          profile: { level: 3, country: 'NO' },
        });
        await c.upsert({ ...PEOPLE[1], _id: 'p2', city: 'Oslo', active: true });
        uow.rollback(mark);
        for (const [description, filter, expected] of FILTER_CASES) {
          assert.deepEqual(sortedIds(await c.find(filter)), expected, description);
          assert.equal(await c.count(filter), expected.length, `count: ${description}`);
        }
      });

      it('a rollback past a find that first indexed the pending documents finds what it restores', async () => {
        const uow = new WriteBehind(store);
        const c = uow.collection<Person>(uniqueId('pending_'));
        await c.upsert({ _id: 'p1', name: 'Ann', city: 'Oslo', profile: { country: 'NO' } });
        const mark = uow.savepoint();
        await c.upsert({ _id: 'p1', name: 'Ann', city: 'Bergen', profile: { country: 'NO' } });
        // the first find on `city` indexes the pending documents as they are now (Bergen)
        assert.deepEqual(ids(await c.find({ city: 'Bergen' })), ['p1']);
        uow.rollback(mark);
        assert.deepEqual(
          ids(await c.find({ city: 'Oslo' })),
          ['p1'],
          'the restored document is found by its restored value',
        );
        assert.deepEqual(ids(await c.find({ city: 'Bergen' })), []);
      });

      it('returns pending documents in the order they were first read or written when no sort is asked', async () => {
        await people.upsert({ _id: 'p9', name: 'Zed', city: 'Trondheim', profile: { country: 'NO' } });
        const uow = new WriteBehind(store);
        const c = uow.collection<Person>(cname);
        const p9 = (await c.get('p9'))!;
        await c.upsert({ _id: 'p7', name: 'Yan', city: 'Trondheim', profile: { country: 'NO' } });
        await c.upsert({ _id: 'p8', name: 'Xi', city: 'Trondheim', profile: { country: 'NO' } });
        await c.upsert({ ...p9, name: 'Zed again' });
        assert.deepEqual(ids((await c.find({ city: 'Trondheim' })).slice(-3)), ['p9', 'p7', 'p8']);
        assert.deepEqual(ids((await c.find({ 'profile.country': 'NO', city: 'Trondheim' })).slice(-3)), [
          'p9',
          'p7',
          'p8',
        ]);
      });

      it('rollback to a savepoint forgets what was written after it', async () => {
        const uow = new WriteBehind(store);
        const c = uow.collection<Person>(cname);
        await c.upsert({ _id: 'p1', name: 'kept', profile: { country: 'NO' } });
        const mark = uow.savepoint();
        await c.upsert({ _id: 'p1', name: 'undone', profile: { country: 'NO' } });
        await c.upsert({ _id: 'p8', name: 'undone too', profile: { country: 'NO' } });
        await c.deleteMany({ city: 'Oslo' });
        uow.rollback(mark);
        assert.equal((await c.get('p1'))!.name, 'kept');
        assert.equal(await c.get('p8'), null);
        assert.equal((await c.get('p5'))!.name, 'Eve');
        assert.deepEqual(
          uow.writes().map((w) => (w.kind === 'put' ? w.doc._id : w.kind)),
          ['p1'],
        );
      });
    });

    describe('indexes', () => {
      interface User extends Document {
        email: string;
        partner?: string;
        name?: string;
      }

      it('a unique index rejects a second document with the same key', async () => {
        const users = store.collection<User>(cname + '_users');
        await users.ensureIndex({ email: 1 }, { unique: true });
        await users.ensureIndex({ email: 1 }, { unique: true }); // idempotent
        await users.upsert({ _id: 'u1', email: 'a@x' });
        await users.upsert({ _id: 'u2', email: 'b@x' });
        const error = await rejection(users.upsert({ _id: 'u2', email: 'a@x' }));
        assert.ok(error instanceof DuplicateKeyError, `expected DuplicateKeyError, got ${String(error)}`);
        assert.equal(error.name, 'DuplicateKeyError');
        assert.equal(error.collection, cname + '_users');
        assert.equal((await users.get('u2'))!.email, 'b@x', 'the rejected upsert changed nothing');
        await rejection(users.upsert({ _id: 'u3', email: 'a@x' }));
        assert.equal(await users.get('u3'), null, 'the rejected insert stored nothing');

        await users.upsert({ _id: 'u1', email: 'a@x', name: 'same key, same document' });
        await users.upsert({ _id: 'u1', email: 'c@x' }); // frees a@x
        await users.upsert({ _id: 'u2', email: 'a@x' });
        await users.delete('u1'); // frees c@x
        await users.upsert({ _id: 'u3', email: 'c@x' });
        assert.deepEqual(
          (await users.find({}, { sort: { _id: 1 } })).map((u) => [u._id, u.email]),
          [
            ['u2', 'a@x'],
            ['u3', 'c@x'],
          ],
        );
      });

      it('a unique compound index considers every field', async () => {
        const groups = store.collection<User>(cname + '_groups');
        await groups.ensureIndex({ partner: 1, name: 1 }, { unique: true });
        await groups.upsert({ _id: 'g1', email: '-', partner: 'p1', name: 'Sales' });
        await groups.upsert({ _id: 'g2', email: '-', partner: 'p2', name: 'Sales' });
        await groups.upsert({ _id: 'g3', email: '-', partner: 'p1', name: 'Support' });
        const error = await rejection(groups.upsert({ _id: 'g4', email: '-', partner: 'p1', name: 'Sales' }));
        assert.ok(error instanceof DuplicateKeyError);
        assert.equal(await groups.count(), 3);
      });

      it('a non-unique index restricts nothing', async () => {
        const logs = store.collection<User>(cname + '_logs');
        await logs.ensureIndex({ email: 1 });
        await logs.ensureIndex({ email: 1, partner: -1 });
        await logs.upsert({ _id: 'l1', email: 'same' });
        await logs.upsert({ _id: 'l2', email: 'same' });
        assert.equal(await logs.count({ email: 'same' }), 2);
      });

      it('creating a unique index over duplicates fails with DuplicateKeyError', async () => {
        const dups = store.collection<User>(cname + '_dups');
        await dups.upsert({ _id: 'd1', email: 'same' });
        await dups.upsert({ _id: 'd2', email: 'same' });
        const error = await rejection(dups.ensureIndex({ email: 1 }, { unique: true }));
        assert.ok(error instanceof DuplicateKeyError, `expected DuplicateKeyError, got ${String(error)}`);
      });
    });

    describe('dropAll', () => {
      it('empties every collection; handles taken before still work', async () => {
        const other = store.collection<Document & { v: number }>(cname + '_other');
        await other.upsert({ _id: 'o1', v: 1 });
        await store.dropAll();
        assert.equal(await people.count(), 0);
        assert.deepEqual(await people.find(), []);
        assert.equal(await people.get('p1'), null);
        assert.equal(await other.count(), 0);
        await other.upsert({ _id: 'o2', v: 2 });
        assert.deepEqual(await other.find(), [{ _id: 'o2', v: 2 }]);
        assert.equal(await store.collection(cname + '_other').count(), 1);
      });

      it('indexes can be ensured again after dropAll', async () => {
        const users = store.collection<Document & { email: string }>(cname + '_u');
        await users.ensureIndex({ email: 1 }, { unique: true });
        await users.upsert({ _id: 'u1', email: 'a' });
        await store.dropAll();
        await users.ensureIndex({ email: 1 }, { unique: true });
        await users.upsert({ _id: 'u2', email: 'a' });
        assert.ok((await rejection(users.upsert({ _id: 'u3', email: 'a' }))) instanceof DuplicateKeyError);
      });
    });

    it('ping answers', async () => {
      await store.ping();
    });
  });
}
