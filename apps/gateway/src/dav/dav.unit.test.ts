/**
 * The pure parts of WebDAV: the If header (parsing and evaluation), XML bodies (refusals, and
 * property values that keep their namespaces, each declared once, within a budget), property keys
 * whatever their namespace holds, responses that stay well-formed, PROPPATCH's document order and
 * size, lock timeouts and what a lock covers.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { DEAD_PROPERTIES_MAX_BYTES } from '@burrow/contracts';
import { SaxesParser } from 'saxes';
import { ifHolds, parseIf, submittedTokens } from './if-header.js';
import { timeoutOf } from './lock.js';
import { below, covers, type DavLock, LOCK_TIMEOUT_DEFAULT, LOCK_TIMEOUT_MAX } from './locks.js';
import { propRequestOf } from './propfind.js';
import { type DavResource, PropertyNames, propertiesFor, type PropRequest } from './properties.js';
import { patchPlanOf } from './proppatch.js';
import { clark, parseClark, parseXml, serializeContent, XmlBudget } from './xml.js';

const roomy = () => new XmlBudget(1 << 20, 'too large');

/** Parses a whole response as XML: throws unless it is well-formed (namespaces included). */
function wellFormed(xml: string): void {
  const parser = new SaxesParser({ xmlns: true });
  parser.write(xml).close();
}
const multistatus = (names: PropertyNames, body: string) =>
  `<D:multistatus xmlns:D="DAV:"${names.declarations()}>${body}</D:multistatus>`;

const lockAt = (path: string, depth: '0' | 'infinity'): DavLock => ({
  token: `opaquelocktoken:${path}`,
  path,
  collection: false,
  depth,
  scope: 'exclusive',
  owned: false,
  timeout: 60,
  expires: 0,
});

describe('the If header', () => {
  it('parses untagged and tagged lists with Not, tokens and entity tags; a malformed one is a 400', () => {
    const lists = parseIf('<http://h/dav/u/d/f> (<opaquelocktoken:a> ["x"]) (Not <DAV:no-lock> ["x"])')!;
    assert.deepEqual(lists, [
      {
        resource: 'http://h/dav/u/d/f',
        conditions: [
          { not: false, token: 'opaquelocktoken:a' },
          { not: false, etag: '"x"' },
        ],
      },
      {
        resource: 'http://h/dav/u/d/f',
        conditions: [
          { not: true, token: 'DAV:no-lock' },
          { not: false, etag: '"x"' },
        ],
      },
    ]);
    assert.deepEqual(submittedTokens(lists), ['opaquelocktoken:a']);
    assert.equal(parseIf(undefined), null);
    for (const bad of ['(', '(<a>', '<x>', '()', 'junk', '(["x")'])
      assert.throws(() => parseIf(bad), { status: 400 }, bad);
  });

  it('holds when one list holds: every condition met (Not inverts), tokens against the locks, tags against the entity tag', async () => {
    const state = async () => ({ tokens: ['opaquelocktoken:a'], etag: '"x"' });
    assert.equal(await ifHolds(parseIf('(<opaquelocktoken:a> ["x"])')!, state), true);
    assert.equal(await ifHolds(parseIf('(<opaquelocktoken:a> ["y"])')!, state), false);
    assert.equal(await ifHolds(parseIf('(<opaquelocktoken:b>) (Not <DAV:no-lock>)')!, state), true);
    assert.equal(await ifHolds(parseIf('(Not <opaquelocktoken:a>)')!, state), false);
    assert.equal(await ifHolds(parseIf('(<opaquelocktoken:b>)')!, state), false);
  });
});

describe('XML bodies', () => {
  it('refuses a DTD, entities, bad namespaces and malformed XML with 400', () => {
    for (const bad of [
      '<!DOCTYPE x [<!ENTITY e SYSTEM "file:///etc/passwd">]><x>&e;</x>',
      '<!DOCTYPE x [<!ENTITY a "a">]><x/>',
      '<x>&undefined;</x>',
      '<D:propfind xmlns:D="DAV:"><D:prop><bar:foo xmlns:bar=""/></D:prop></D:propfind>',
      '<foo>',
      `${'<a>'.repeat(100)}${'</a>'.repeat(100)}`,
    ])
      assert.throws(() => parseXml(bad), { status: 400 }, bad);
  });

  it("keeps a property value's XML, its namespaces declared where they are first used, so it reparses the same", () => {
    const root = parseXml('<p xmlns="urn:p" xmlns:q="urn:q"><q:a q:attr="1">t &amp; u<b/></q:a>tail</p>')!;
    const value = serializeContent(root, roomy());
    const again = parseXml(`<w xmlns="urn:w">${value}</w>`)!;
    const [a, tail] = again.children;
    assert.equal(typeof a !== 'string' && `${a.ns} ${a.name} ${a.attrs[0].ns} ${a.attrs[0].value}`, 'urn:q a urn:q 1');
    assert.equal(typeof a !== 'string' && typeof a.children[1] !== 'string' && a.children[1].ns, 'urn:p');
    assert.equal(tail, 'tail');
  });

  it('declares a namespace once along a branch: nested elements reuse it; no-namespace and xml: attributes stay right', () => {
    const root = parseXml(
      `<p xmlns:z="urn:${'z'.repeat(1000)}"><z:a><z:b><z:c z:k="v" xml:lang="en">"quoted" &amp; &lt;</z:c></z:b><plain/></z:a></p>`,
    )!;
    const value = serializeContent(root, roomy());
    assert.equal(value.match(/xmlns:n\d+=/g)?.length, 1);
    assert.ok(value.length < 1200, value);
    // text keeps `"` as one byte; the value reads back the same
    assert.match(value, /"quoted" &amp; &lt;/);
    const again = parseXml(`<w>${value}</w>`)!;
    const a = again.children[0];
    assert.ok(typeof a !== 'string');
    const c = (a.children[0] as typeof a).children[0] as typeof a;
    assert.deepEqual(
      [c.ns, c.name, c.attrs.map((x) => `${x.ns}|${x.name}|${x.value}`)],
      [`urn:${'z'.repeat(1000)}`, 'c', [`urn:${'z'.repeat(1000)}|k|v`, 'http://www.w3.org/XML/1998/namespace|lang|en']],
    );
    assert.equal((a.children[1] as typeof a).ns, '');
  });

  it('a value past its budget is refused with 413 as soon as it passes it, never built whole (one long namespace on thousands of siblings)', () => {
    // 6,000 sibling elements in an 8 KiB namespace: as siblings each declares it, ~48 MB if built
    const ns = `urn:${'a&amp;'.repeat(1600)}`;
    const root = parseXml(`<p xmlns:Z="${ns}">${'<Z:e/>'.repeat(6000)}</p>`)!;
    const before = process.memoryUsage().heapUsed;
    assert.throws(() => serializeContent(root, new XmlBudget(64 * 1024, 'the value is too large')), {
      status: 413,
      body: { reason: 'the value is too large' },
    });
    assert.ok(process.memoryUsage().heapUsed - before < 16 * 1024 * 1024, 'no large string was built');
    // and a PROPPATCH setting it is refused the same way
    assert.throws(
      () =>
        patchPlanOf(
          `<D:propertyupdate xmlns:D="DAV:" xmlns:Z="${ns}"><D:set><D:prop><Z:p>${'<Z:e/>'.repeat(6000)}</Z:p></D:prop></D:set></D:propertyupdate>`,
        ),
      { status: 413 },
    );
    // within the budget: taken
    const small = patchPlanOf(
      `<D:propertyupdate xmlns:D="DAV:"><D:set><D:prop><p xmlns="urn:x">${'v'.repeat(DEAD_PROPERTIES_MAX_BYTES - 100)}</p></D:prop></D:set></D:propertyupdate>`,
    );
    assert.equal(small.set['{urn:x}p'].length, DEAD_PROPERTIES_MAX_BYTES - 100);
  });
});

describe('property keys and responses', () => {
  it('a key reads back whatever its namespace holds (a `}` too); one that names no property is none', () => {
    const ns = 'urn:q}"></D:prop></D:propstat><D:response>';
    assert.deepEqual(parseClark(clark(ns, 'x')), { ns, name: 'x' });
    assert.deepEqual(parseClark(clark('', 'x')), { ns: '', name: 'x' });
    for (const bad of ['x', '{urn:a}', '{urn:a}"><y', '{urn:a}1x', 'urn:a}x']) assert.equal(parseClark(bad), null, bad);
  });

  it('PROPFIND and PROPPATCH answers stay well-formed XML whatever the namespaces and names hold', () => {
    const evil = 'urn:q}"></D:prop></D:propstat></D:response><D:response><D:href>/forged</D:href>';
    const resource: DavResource = {
      href: '/dav/u/d/f',
      collection: false,
      displayname: 'f',
      dead: { [clark(evil, 'p')]: 'v', '{urn:q}"></D:prop><x': 'from before', [clark('', 'bare')]: '1' },
      locks: [],
    };
    const requests: PropRequest[] = [
      { kind: 'allprop', include: [] },
      { kind: 'propname' },
      { kind: 'prop', keys: [clark(evil, 'p'), clark(evil, 'missing'), clark('', 'bare'), clark('urn:other', 'm')] },
    ];
    for (const request of requests) {
      const names = new PropertyNames(request.kind === 'prop' ? request.keys : []);
      const { found, missing } = propertiesFor(resource, request, names);
      const xml = multistatus(names, `<D:response>${found.join('')}${missing.join('')}</D:response>`);
      wellFormed(xml);
      assert.doesNotMatch(xml, /<D:href>\/forged/);
      assert.doesNotMatch(xml, /from before/);
    }
  });

  it('the names a PROPFIND or PROPPATCH names are bounded in all (413), counted before a key is built: 6,000 names in a 16 KiB namespace are refused', () => {
    const ns = `urn:${'n'.repeat(16 * 1024)}`;
    const names = (count: number, space: string) =>
      Array.from({ length: count }, (_, i) => `<Z:m${i}/>`)
        .join('')
        .replace(/^/, `<D:prop xmlns:Z="${space}">`) + '</D:prop>';
    assert.throws(() => propRequestOf(`<D:propfind xmlns:D="DAV:">${names(6000, ns)}</D:propfind>`), { status: 413 });
    assert.throws(
      () => patchPlanOf(`<D:propertyupdate xmlns:D="DAV:"><D:remove>${names(6000, ns)}</D:remove></D:propertyupdate>`),
      { status: 413 },
    );
    const many = propRequestOf(
      `<D:propfind xmlns:D="DAV:">${names(1000, 'http://example.com/a/namespace/of/some/length/')}</D:propfind>`,
    );
    assert.equal(many.kind === 'prop' && many.keys.length, 1000);
  });

  it("a request's namespaces are declared once for the whole response, however many properties name them", () => {
    const ns = `urn:${'n'.repeat(1024)}`;
    const keys = Array.from({ length: 60 }, (_, i) => clark(ns, `m${i}`));
    const names = new PropertyNames(keys);
    const resource: DavResource = { href: '/dav/u/d/f', collection: false, displayname: 'f', dead: {}, locks: [] };
    const { missing } = propertiesFor(resource, { kind: 'prop', keys }, names);
    const body = missing.join('');
    assert.ok(!body.includes('nnnn'), 'the namespace is not repeated per property');
    assert.ok(body.length < 60 * 16);
    wellFormed(multistatus(names, `<D:response><D:propstat><D:prop>${body}</D:prop></D:propstat></D:response>`));
  });

  it('PROPFIND bodies: empty is allprop; prop, propname, allprop with include; unknown elements ignored', () => {
    assert.deepEqual(propRequestOf(''), { kind: 'allprop', include: [] });
    assert.deepEqual(propRequestOf('<propfind xmlns="DAV:"><foobar/><allprop/></propfind>'), {
      kind: 'allprop',
      include: [],
    });
    assert.deepEqual(
      propRequestOf('<propfind xmlns="DAV:"><prop><getetag/><x xmlns="urn:x"/><y xmlns=""/></prop></propfind>'),
      { kind: 'prop', keys: ['{DAV:}getetag', '{urn:x}x', '{}y'] },
    );
    assert.deepEqual(propRequestOf('<propfind xmlns="DAV:"><propname/></propfind>'), { kind: 'propname' });
    assert.throws(() => propRequestOf('<other xmlns="DAV:"/>'), { status: 400 });
  });

  it('PROPPATCH applies set and remove in document order: the last instruction about a property wins', () => {
    const plan = patchPlanOf(
      '<propertyupdate xmlns="DAV:"><remove><prop><a xmlns="urn:x"/></prop></remove><set><prop><a xmlns="urn:x">1</a><b xmlns="urn:x">2</b></prop></set>' +
        '<remove><prop><b xmlns="urn:x"/></prop></remove></propertyupdate>',
    );
    assert.deepEqual(plan.set, { '{urn:x}a': '1' });
    assert.deepEqual(plan.remove, ['{urn:x}b']);
  });
});

describe('locks', () => {
  it('a lock covers its resource, and with Depth infinity what is below it; a timeout is capped', () => {
    assert.ok(covers(lockAt('d/a', '0'), 'd/a'));
    assert.ok(!covers(lockAt('d/a', '0'), 'd/a/b'));
    assert.ok(covers(lockAt('d/a', 'infinity'), 'd/a/b'));
    assert.ok(!covers(lockAt('d/a', 'infinity'), 'd/ab'));
    assert.ok(below(lockAt('d/a/b', '0'), 'd/a'));
    assert.ok(!below(lockAt('d/ab', '0'), 'd/a'));
    assert.equal(timeoutOf('Second-600'), 600);
    assert.equal(timeoutOf('Infinite, Second-4100000000'), LOCK_TIMEOUT_MAX);
    assert.equal(timeoutOf('Second-99999999999'), LOCK_TIMEOUT_MAX);
    assert.equal(timeoutOf(undefined), LOCK_TIMEOUT_DEFAULT);
  });
});
