/**
 * The pure parts of WebDAV: the If header (parsing and evaluation), XML bodies (refusals, and
 * property values that keep their namespaces), PROPPATCH's document order, lock timeouts and what
 * a lock covers.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ifHolds, parseIf, submittedTokens } from './if-header.js';
import { timeoutOf } from './lock.js';
import { below, covers, type DavLock, LOCK_TIMEOUT_DEFAULT, LOCK_TIMEOUT_MAX } from './locks.js';
import { propRequestOf } from './propfind.js';
import { patchPlanOf } from './proppatch.js';
import { parseXml, serializeContent } from './xml.js';

const lockAt = (path: string, depth: '0' | 'infinity'): DavLock => ({ token: `opaquelocktoken:${path}`, path, root: `/dav/u/${path}`, depth, scope: 'exclusive', owner: '', timeout: 60, expires: 0 });

describe('the If header', () => {
  it('parses untagged and tagged lists with Not, tokens and entity tags; a malformed one is a 400', () => {
    const lists = parseIf('<http://h/dav/u/d/f> (<opaquelocktoken:a> ["x"]) (Not <DAV:no-lock> ["x"])')!;
    assert.deepEqual(lists, [
      { resource: 'http://h/dav/u/d/f', conditions: [{ not: false, token: 'opaquelocktoken:a' }, { not: false, etag: '"x"' }] },
      { resource: 'http://h/dav/u/d/f', conditions: [{ not: true, token: 'DAV:no-lock' }, { not: false, etag: '"x"' }] },
    ]);
    assert.deepEqual(submittedTokens(lists), ['opaquelocktoken:a']);
    assert.equal(parseIf(undefined), null);
    for (const bad of ['(', '(<a>', '<x>', '()', 'junk', '(["x")']) assert.throws(() => parseIf(bad), { status: 400 }, bad);
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
    ]) assert.throws(() => parseXml(bad), { status: 400 }, bad);
  });

  it("keeps a property value's XML, namespaces declared on every element, so it reparses the same", () => {
    const root = parseXml('<p xmlns="urn:p" xmlns:q="urn:q"><q:a q:attr="1">t &amp; u<b/></q:a>tail</p>')!;
    const value = serializeContent(root);
    const again = parseXml(`<w xmlns="urn:w">${value}</w>`)!;
    const [a, tail] = again.children;
    assert.equal(typeof a !== 'string' && `${a.ns} ${a.name} ${a.attrs[0].ns} ${a.attrs[0].value}`, 'urn:q a urn:q 1');
    assert.equal(typeof a !== 'string' && typeof a.children[1] !== 'string' && a.children[1].ns, 'urn:p');
    assert.equal(tail, 'tail');
  });

  it('PROPFIND bodies: empty is allprop; prop, propname, allprop with include; unknown elements ignored', () => {
    assert.deepEqual(propRequestOf(''), { kind: 'allprop', include: [] });
    assert.deepEqual(propRequestOf('<propfind xmlns="DAV:"><foobar/><allprop/></propfind>'), { kind: 'allprop', include: [] });
    assert.deepEqual(propRequestOf('<propfind xmlns="DAV:"><prop><getetag/><x xmlns="urn:x"/><y xmlns=""/></prop></propfind>'), { kind: 'prop', keys: ['{DAV:}getetag', '{urn:x}x', '{}y'] });
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
