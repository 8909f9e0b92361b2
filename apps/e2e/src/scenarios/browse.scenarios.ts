/**
 * The storage interface (B) end to end, as backup clients and browsers use it: login (Basic, the
 * cookie flow, email logins, logout seen by every gateway), the storage root, folders, files and
 * versions, downloads with conditional and ranged requests, zips checked with the real `unzip`,
 * single-file links, session extensions, the policy (disabled users, groups without the web
 * interface, other users' storage) and hostile paths. In multi-process mode a session opened on
 * one gateway is used, and ended, on another.
 */
import { LISTING_PAGE_SIZE_FOR_TESTS } from '../harness/standalone.js';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { it } from 'node:test';
import supertest from 'supertest';
import { partnerApi } from '../harness/client.js';
import { bytes, hasUnzip, unzipAll } from '../harness/http-bytes.js';
import { b32, storageApi } from '../harness/storage-client.js';
import { createGroup, createUser, eventually, knownPlans, unique } from './accounts-fixtures.js';
import type { ScenarioContext } from './scenarios.js';
import { createShareRoom, roomAddress, userWithShareRoom } from './share-fixtures.js';

const PASSWORD = 'user-password-1';

/** A deterministic pseudo-random buffer (incompressible, so no layer can cheat by compressing). */
function pattern(size: number, seed: number): Buffer {
  const out = Buffer.alloc(size);
  let x = seed >>> 0 || 1;
  for (let i = 0; i < size; i++) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    out[i] = x & 0xff;
  }
  return out;
}

export function browseScenarios({ target }: ScenarioContext) {
  const api = () => partnerApi(target());
  const first = () => target().urls[0];
  const last = () => target().urls[target().urls.length - 1];

  /** A user with a laptop holding a few files (one with two versions, one large, one with a UTF-8 name). */
  async function userWithFiles() {
    const username = unique('br');
    const { user } = await createUser(api(), { username, password: PASSWORD });
    const storage = storageApi(target(), username, PASSWORD);
    await storage.putDevice('laptop').expect(200);
    const files: Record<string, Buffer> = {
      'Documents/report.txt': Buffer.from('version one'),
      'Documents/Sub dir/résumé ü.txt': Buffer.from('accents et espaces'),
      'Documents/big.bin': pattern(3 * 1024 * 1024 + 17, 7),
      'notes.md': Buffer.from('# notes\n'),
      'empty.txt': Buffer.alloc(0),
    };
    for (const [path, content] of Object.entries(files))
      assert.equal((await storage.putFile('laptop', path, content)).status, 201);
    const v1 = Buffer.from('version two, longer');
    assert.equal((await storage.putFile('laptop', 'Documents/report.txt', v1)).status, 201);
    return { username, email: user.email, storage, files, latestReport: v1, root: `/storage/${b32(username)}` };
  }

  const as = (username: string, url = first()) => {
    const agent = supertest(url);
    return {
      get: (path: string) => agent.get(path).auth(username, PASSWORD),
      post: (path: string) => agent.post(path).auth(username, PASSWORD),
      agent,
    };
  };

  it("an unlimited plan: the storage root sends the plan's own size, which the mobile app's storage bar divides by (not 0)", async () => {
    const plans = await knownPlans(api());
    const username = unique('unl');
    await createUser(api(), { username, password: PASSWORD, plan_id: plans.unlimited.plan_id });
    const storage = storageApi(target(), username, PASSWORD);
    await storage.putDevice('laptop').expect(200);
    await storage.putFile('laptop', 'a.txt', 'twelve bytes').expect(201);
    const { stats } = (
      await as(username)
        .get(`/storage/${b32(username)}/`)
        .expect(200)
    ).body;
    assert.equal(stats.size_for_robots, 1000000001000000000);
    assert.equal(stats.size, 1000000001);
    assert.equal(stats.backupsize_for_robots, '12');
    // the mobile app's StorageBarModel.parse, as written
    const percentUsed = Math.ceil((parseInt(stats.backupsize_for_robots, 10) / stats.size_for_robots) * 100);
    assert.ok(Number.isFinite(percentUsed) && percentUsed <= 1, `percentUsed ${percentUsed}`);
  });

  it('the storage root: stats and devices, with device_info=yes the device objects', async () => {
    const u = await userWithFiles();
    await u.storage.putDevice('phone', { sysplatform: 'android', client_revision: 7 }).expect(200);
    const res = await as(u.username).get(`${u.root}/`).expect(200);
    assert.deepEqual(res.body.devices, [
      ['laptop', 'laptop/'],
      ['phone', 'phone/'],
    ]);
    const stats = res.body.stats;
    assert.equal(stats.devices, 2);
    assert.equal(stats.firstname, 'Name');
    assert.equal(stats.lastname, u.username);
    const stored = Object.values(u.files).reduce((n, b) => n + b.length, 0) + u.latestReport.length;
    assert.equal(stats.backupsize_for_robots, String(stored), 'a decimal string, as the original sent it');
    assert.equal(typeof stats.backupsize, 'string');
    assert.equal(typeof stats.size, 'number');
    assert.ok(stats.size_for_robots > 0);
    assert.equal(typeof stats.billing_url, 'string');
    const info = await as(u.username).get(`${u.root}/?device_info=yes&_=123`).expect(200);
    const phone = info.body.devices.find((d: { name: string }) => d.name === 'phone');
    assert.equal(phone.url, 'phone/');
    assert.equal(phone.encoded, 'phone/');
    assert.equal(phone.sysplatform, 'android');
    assert.ok(phone.lastlogin > 0);
    const laptop = info.body.devices.find((d: { name: string }) => d.name === 'laptop');
    assert.ok(laptop.lastcommit >= laptop.lastlogin - 5, 'the laptop committed files after logging in');
  });

  it('folders list subfolders and files with relative URLs clients concatenate; file objects carry versions', async () => {
    const u = await userWithFiles();
    const device = await as(u.username).get(`${u.root}/laptop/`).expect(200);
    assert.deepEqual(device.body.dirs, [['Documents', 'Documents/']]);
    assert.deepEqual(
      device.body.files.map((f: { name: string }) => f.name),
      ['empty.txt', 'notes.md'],
    );
    const docs = await as(u.username).get(`${u.root}/laptop/${device.body.dirs[0][1]}`).expect(200);
    assert.deepEqual(docs.body.dirs, [['Sub dir', 'Sub%20dir/']]);
    const report = docs.body.files.find((f: { name: string }) => f.name === 'report.txt');
    assert.equal(report.url, 'report.txt');
    assert.equal(report.size, u.latestReport.length);
    assert.equal(report.versions, 2);
    assert.ok(Number.isInteger(report.mtime) && Number.isInteger(report.ctime));
    // etime: when the latest version was backed up (the mobile app reads it)
    assert.ok(
      Number.isInteger(report.etime) && Math.abs(report.etime - Date.now() / 1000) < 600,
      `etime ${report.etime}`,
    );
    const sub = await as(u.username).get(`${u.root}/laptop/Documents/${docs.body.dirs[0][1]}`).expect(200);
    const accented = sub.body.files[0];
    assert.equal(accented.name, 'résumé ü.txt');
    const content = await bytes(as(u.username).get(`${u.root}/laptop/Documents/Sub%20dir/${accented.url}`)).expect(200);
    assert.deepEqual(content.body, u.files['Documents/Sub dir/résumé ü.txt']);
    await as(u.username).get(`${u.root}/laptop/Nowhere/`).expect(404);
    await as(u.username).get(`${u.root}/tablet/`).expect(404);
  });

  it('versions: version_info is a bare array ending with the latest, each url ends in ?version=<n>; old versions download', async () => {
    const u = await userWithFiles();
    const file = `${u.root}/laptop/Documents/report.txt`;
    const info = await as(u.username).get(`${file}?format=version_info`).expect(200);
    assert.ok(Array.isArray(info.body));
    assert.deepEqual(
      info.body.map((v: { url: string }) => v.url),
      ['report.txt?version=0', 'report.txt?version=1'],
    );
    assert.deepEqual(
      info.body.map((v: { size: number }) => v.size),
      [u.files['Documents/report.txt'].length, u.latestReport.length],
    );
    assert.ok(info.body.every((v: Record<string, unknown>) => !('versions' in v)));
    const old = await bytes(as(u.username).get(`${file}?version=0`)).expect(200);
    assert.deepEqual(old.body, u.files['Documents/report.txt']);
    const latest = await bytes(as(u.username).get(file)).expect(200);
    assert.deepEqual(latest.body, u.latestReport);
    // a version with trailing junk uses its integer prefix; unknown parameters are ignored
    const junk = await bytes(as(u.username).get(`${file}?version=0cb=17000&cb=1&auth_required_format=x`)).expect(200);
    assert.deepEqual(junk.body, u.files['Documents/report.txt']);
    await as(u.username).get(`${file}?version=9`).expect(404);
    await as(u.username).get(`${file}?version=abc`).expect(400);
    // no preview was made for a text file: the bare key asks for one
    await as(u.username).get(`${file}?preview_48`).expect(404);
  });

  it('downloads: length, strong ETag, Last-Modified, type, UTF-8 disposition; 304, byte-exact 206, If-Range, 416', async () => {
    const u = await userWithFiles();
    const big = u.files['Documents/big.bin'];
    const url = `${u.root}/laptop/Documents/big.bin`;
    const full = await bytes(as(u.username).get(url)).expect(200);
    assert.deepEqual(full.body, big);
    assert.equal(full.headers['content-length'], String(big.length));
    const etag = full.headers.etag;
    assert.equal(etag, `"${createHash('sha256').update(big).digest('hex')}"`);
    assert.ok(full.headers['last-modified']);
    assert.equal(full.headers['accept-ranges'], 'bytes');
    assert.match(full.headers['content-disposition'], /^attachment; filename="?big.bin"?/);
    await as(u.username).get(url).set('If-None-Match', etag).expect(304);
    await as(u.username).get(url).set('If-Modified-Since', full.headers['last-modified']).expect(304);
    const start = 1024 * 1024 + 3;
    const end = 2 * 1024 * 1024 + 99;
    const part = await bytes(as(u.username, last()).get(url).set('Range', `bytes=${start}-${end}`)).expect(206);
    assert.deepEqual(part.body, big.subarray(start, end + 1));
    assert.equal(part.headers['content-range'], `bytes ${start}-${end}/${big.length}`);
    const suffix = await bytes(as(u.username).get(url).set('Range', 'bytes=-10')).expect(206);
    assert.deepEqual(suffix.body, big.subarray(big.length - 10));
    const resumed = await bytes(as(u.username).get(url).set('Range', `bytes=${start}-`).set('If-Range', etag)).expect(
      206,
    );
    assert.deepEqual(resumed.body, big.subarray(start));
    const changed = await bytes(
      as(u.username).get(url).set('Range', `bytes=${start}-`).set('If-Range', '"another"'),
    ).expect(200);
    assert.equal(changed.body.length, big.length);
    const outside = await as(u.username)
      .get(url)
      .set('Range', `bytes=${big.length + 5}-`)
      .expect(416);
    assert.equal(outside.headers['content-range'], `bytes */${big.length}`);
    // a malformed range is ignored
    await as(u.username).get(url).set('Range', 'bytes=9-3').expect(200);
    const accented = await as(u.username)
      .get(`${u.root}/laptop/Documents/Sub%20dir/${encodeURIComponent('résumé ü.txt')}`)
      .expect(200);
    assert.match(accented.headers['content-disposition'], /filename\*=UTF-8''r%C3%A9sum%C3%A9%20%C3%BC\.txt/);
    assert.match(accented.headers['content-type'], /^text\/plain/);
    assert.equal(accented.headers['x-content-type-options'], 'nosniff');
    const empty = await bytes(as(u.username).get(`${u.root}/laptop/empty.txt`)).expect(200);
    assert.equal(empty.body.length, 0);
    assert.equal(empty.headers['content-length'], '0');
  });

  it('zips: a folder extracts with unzip to the same files, the same state gives the same bytes, and a resumed download equals the full one', async (t) => {
    if (!(await hasUnzip())) return t.skip('the unzip tool is not installed (apt-get install unzip)');
    const u = await userWithFiles();
    const url = `${u.root}/laptop/Documents/?format=zip`;
    const zip = await bytes(as(u.username).get(url)).expect(200);
    assert.equal(zip.headers['content-type'], 'application/zip');
    assert.equal(zip.headers['content-length'], String(zip.body.length));
    assert.match(zip.headers['content-disposition'], /filename="?Documents.zip"?/);
    const extracted = await unzipAll(zip.body);
    const expected = new Map<string, Buffer>([
      ['Documents/report.txt', u.latestReport],
      ['Documents/Sub dir/résumé ü.txt', u.files['Documents/Sub dir/résumé ü.txt']],
      ['Documents/big.bin', u.files['Documents/big.bin']],
    ]);
    assert.deepEqual([...extracted.keys()].sort(), [...expected.keys()].sort());
    for (const [path, content] of expected) assert.ok(extracted.get(path)!.equals(content), path);
    // deterministic: same bytes, same ETag, from another gateway too
    const again = await bytes(as(u.username, last()).get(url)).expect(200);
    assert.ok(again.body.equals(zip.body));
    assert.equal(again.headers.etag, zip.headers.etag);
    // resume a broken download from deep inside the big entry
    const cut = Math.floor(zip.body.length / 2);
    const rest = await bytes(
      as(u.username).get(url).set('Range', `bytes=${cut}-`).set('If-Range', zip.headers.etag),
    ).expect(206);
    assert.ok(Buffer.concat([zip.body.subarray(0, cut), rest.body]).equals(zip.body));
    await as(u.username).get(url).set('If-None-Match', zip.headers.etag).expect(304);
    // a new upload changes the archive and its ETag
    await u.storage.putFile('laptop', 'Documents/new.txt', 'new').expect(201);
    const changed = await bytes(as(u.username).get(url)).expect(200);
    assert.notEqual(changed.headers.etag, zip.headers.etag);
    assert.ok((await unzipAll(changed.body)).get('Documents/new.txt')!.equals(Buffer.from('new')));
    // the whole device
    const device = await bytes(as(u.username).get(`${u.root}/laptop/?format=zip`)).expect(200);
    const all = await unzipAll(device.body);
    assert.ok(all.get('laptop/notes.md')!.equals(u.files['notes.md']));
    assert.equal(all.get('laptop/empty.txt')!.length, 0);
  });

  it('login: /browse/login then /storage/<b32>/login give login: and location:, the cookie works on every gateway, logout ends it everywhere', async () => {
    const u = await userWithFiles();
    const browse = await supertest(first())
      .post('/browse/login')
      .type('form')
      .send({ username: u.username, password: PASSWORD })
      .expect(200);
    assert.match(browse.text, /^login:(.+)$/);
    const loginPath = browse.text.slice('login:'.length);
    assert.equal(loginPath, `${u.root}/login`);
    const login = await supertest(first())
      .post(loginPath)
      .type('form')
      .send({ username: u.username, password: PASSWORD })
      .expect(200);
    assert.equal(login.text, `location:${u.root}/`);
    const setCookie = (login.headers['set-cookie'] as unknown as string[])[0];
    assert.match(setCookie, /HttpOnly/i);
    assert.match(setCookie, /SameSite=Lax/i);
    assert.match(setCookie, /Path=\//);
    const cookie = setCookie.split(';')[0];
    // the session works on another gateway replica
    const root = await supertest(last()).get(`${u.root}/`).set('Cookie', cookie).expect(200);
    assert.deepEqual(root.body.devices, [['laptop', 'laptop/']]);
    const file = await bytes(supertest(last()).get(`${u.root}/laptop/notes.md`).set('Cookie', cookie)).expect(200);
    assert.deepEqual(file.body, u.files['notes.md']);
    // logout on the first, replay refused on the last
    await supertest(first()).get(`${u.root}/logout`).set('Cookie', cookie).expect(200);
    const replay = await supertest(last()).get(`${u.root}/`).set('Cookie', cookie).expect(401);
    assert.match(replay.headers['www-authenticate'], /^Basic realm="burrow\/[A-Z2-7]+"$/);
    // a forged cookie is no session
    const forged = cookie.slice(0, -3) + (cookie.endsWith('AAA') ? 'BBB' : 'AAA');
    await supertest(first()).get(`${u.root}/`).set('Cookie', forged).expect(401);
  });

  it('login by email answers with the internal username; Basic accepts the email too; bad credentials are refused', async () => {
    const u = await userWithFiles();
    const byEmail = `/storage/${b32(u.email)}`;
    const login = await supertest(first())
      .post(`${byEmail}/login`)
      .type('form')
      .send({ password: PASSWORD })
      .expect(200);
    assert.equal(login.text, `location:${u.root}/`);
    const browse = await supertest(first())
      .post('/browse/login')
      .type('form')
      .send({ username: u.email.toUpperCase(), password: PASSWORD })
      .expect(200);
    assert.equal(browse.text, `login:${u.root}/login`);
    await supertest(first()).get(`${u.root}/`).auth(u.email, PASSWORD).expect(200);
    const bad = await supertest(first()).post(`${u.root}/login`).type('form').send({ password: 'wrong-password-1' });
    assert.ok([401, 403].includes(bad.status), `bad password: ${bad.status}`);
    assert.ok(!bad.headers['set-cookie']);
    const badBrowse = await supertest(first())
      .post('/browse/login')
      .type('form')
      .send({ username: u.username, password: 'nope-nope-1' });
    assert.ok([401, 403].includes(badBrowse.status));
    const missing = await supertest(first()).post('/browse/login').type('form').send({ username: u.username });
    assert.equal(missing.status, 400);
  });

  it('unauthenticated storage requests get 401 with the Basic challenge; another user storage is 404; disabled users and groups without the web interface get 403', async () => {
    const u = await userWithFiles();
    const other = await userWithFiles();
    const anonymous = await supertest(first()).get(`${u.root}/laptop/`).expect(401);
    assert.equal(anonymous.headers['www-authenticate'], `Basic realm="burrow/${b32(u.username)}"`);
    assert.equal(typeof anonymous.body.reason, 'string');
    // the other user's storage, with valid credentials of this one
    await as(u.username).get(`${other.root}/`).expect(404);
    await as(u.username).get(`${other.root}/laptop/notes.md`).expect(404);
    await as(u.username).post(`${other.root}/laptop/notes.md`).expect(404);
    // a password change ends sessions
    const login = await supertest(first())
      .post(`${u.root}/login`)
      .type('form')
      .send({ password: PASSWORD })
      .expect(200);
    const cookie = (login.headers['set-cookie'] as unknown as string[])[0].split(';')[0];
    await supertest(first()).get(`${u.root}/`).set('Cookie', cookie).expect(200);
    await api().post(`/users/${u.username}`, { password: 'another-password-2' }).expect(200);
    await supertest(last()).get(`${u.root}/`).set('Cookie', cookie).expect(401);
    // disabled
    await api().post(`/users/${other.username}`, { enabled: false }).expect(200);
    const disabled = await as(other.username).get(`${other.root}/`).expect(403);
    assert.match(disabled.body.reason, /disabled/);
    // a group with the web interface off
    const plans = await knownPlans(api());
    const group = await createGroup(api(), {
      name: unique('nowebapi'),
      plan_id: plans.large.plan_id,
      webapi_enable: false,
    });
    const member = unique('gm');
    await createUser(api(), { username: member, password: PASSWORD, group_id: group.group_id });
    const refused = await as(member)
      .get(`/storage/${b32(member)}/`)
      .expect(403);
    assert.match(refused.body.reason, /web interface/);
  });

  it('single-file links: a path beginning with /, served without login, pinned to the version, tampering refused', async () => {
    const u = await userWithFiles();
    const res = await as(u.username).post(`${u.root}/laptop/Documents/report.txt`).send('ignored').expect(200);
    assert.match(res.text, /^\/\S+$/);
    const link = res.text;
    const got = await bytes(supertest(last()).get(link)).expect(200);
    assert.deepEqual(got.body, u.latestReport);
    // a later upload does not change what the link serves
    await u.storage.putFile('laptop', 'Documents/report.txt', 'version three').expect(201);
    assert.deepEqual((await bytes(supertest(first()).get(link)).expect(200)).body, u.latestReport);
    // tampered
    const parts = link.split('/');
    const token = parts[2];
    const tampered = [
      ...parts.slice(0, 2),
      token.slice(0, -2) + (token.endsWith('AA') ? 'BB' : 'AA'),
      ...parts.slice(3),
    ].join('/');
    assert.ok([403, 404].includes((await supertest(first()).get(tampered)).status));
    const [body, kid, mac] = token.split('.');
    const claims = JSON.parse(Buffer.from(body, 'base64url').toString('utf8'));
    const otherFile = Buffer.from(JSON.stringify({ ...claims, p: 'notes.md' })).toString('base64url');
    assert.ok([403, 404].includes((await supertest(first()).get(`/link/${otherFile}.${kid}.${mac}/notes.md`)).status));
    // a folder cannot be shared this way
    await as(u.username).post(`${u.root}/laptop/Documents/`).expect(400);
  });

  it('session extensions: ?format=session_extension&ip= gives a string that, as se=, lets that address fetch that one file without login', async () => {
    const u = await userWithFiles();
    const url = `${u.root}/laptop/notes.md`;
    const ext = await as(u.username).get(`${url}?format=session_extension&ip=127.0.0.1`).expect(200);
    const se = ext.text;
    assert.ok(se.length > 20 && !/\s/.test(se));
    const got = await bytes(supertest(last()).get(`${url}?se=${encodeURIComponent(se)}`)).expect(200);
    assert.deepEqual(got.body, u.files['notes.md']);
    // another resource, another address, a tampered string: refused
    assert.ok(
      [403, 404].includes(
        (await supertest(first()).get(`${u.root}/laptop/empty.txt?se=${encodeURIComponent(se)}`)).status,
      ),
    );
    const elsewhere = await as(u.username).get(`${url}?format=session_extension&ip=203.0.113.9`).expect(200);
    assert.ok(
      [403, 404].includes((await supertest(first()).get(`${url}?se=${encodeURIComponent(elsewhere.text)}`)).status),
    );
    assert.ok(
      [403, 404].includes(
        (await supertest(first()).get(`${url}?se=${encodeURIComponent(se.slice(0, -2) + 'xx')}`)).status,
      ),
    );
    await as(u.username).get(`${url}?format=session_extension&ip=not-an-ip`).expect(400);
    await as(u.username).get(`${u.root}/laptop/missing.txt?format=session_extension&ip=127.0.0.1`).expect(404);
  });

  it('links and session extensions name what they were made for: a removed device, a deleted file or a folder of the same path is not it; an extension never makes another', async () => {
    const u = await userWithFiles();
    const anonymous = () => supertest(last());
    const dead = (res: supertest.Response, what: string) =>
      assert.ok([404, 410].includes(res.status), `${what}: ${res.status} ${res.text}`);
    const link = async (path: string) => (await as(u.username).post(`${u.root}/laptop/${path}`).expect(200)).text;
    const extension = async (path: string) =>
      (await as(u.username).get(`${u.root}/laptop/${path}?format=session_extension&ip=127.0.0.1`).expect(200)).text;
    const withSe = (path: string, se: string, query = '') =>
      anonymous().get(`${u.root}/laptop/${path}?${query}se=${encodeURIComponent(se)}`);

    // an extension is made only by the logged-in owner: never by an extension, from any address
    const se = await extension('notes.md');
    assert.equal((await withSe('notes.md', se, 'format=session_extension&ip=127.0.0.9&')).status, 403);
    // the file's versions through the extension: fine (the same file)
    assert.equal((await withSe('notes.md', se, 'format=version_info&')).status, 200);

    // delete the file and upload again to its path: the old link and extension are gone for good
    const noteLink = await link('notes.md');
    await u.storage.deletePath('laptop', 'notes.md').expect(200);
    dead(await anonymous().get(noteLink), 'link after delete');
    await u.storage.putFile('laptop', 'notes.md', 'new private notes').expect(201);
    dead(await anonymous().get(noteLink), 'link after delete and upload');
    dead(await withSe('notes.md', se), 'extension after delete and upload');
    dead(await withSe('notes.md', se, 'format=version_info&'), 'extension versions after delete and upload');
    // new ones for the new file work
    assert.equal(
      (await bytes(anonymous().get(await link('notes.md'))).expect(200)).body.toString(),
      'new private notes',
    );

    // the same when the file went with its folder
    const reportLink = await link('Documents/report.txt');
    const reportSe = await extension('Documents/report.txt');
    await u.storage.deletePath('laptop', 'Documents/').expect(200);
    await u.storage.putFile('laptop', 'Documents/report.txt', 'another report').expect(201);
    dead(await anonymous().get(reportLink), 'link after folder delete and upload');
    dead(await withSe('Documents/report.txt', reportSe), 'extension after folder delete and upload');

    // remove the device, register one of the same name, upload to the same path: not what was shared
    const emptyLink = await link('empty.txt');
    const emptySe = await extension('empty.txt');
    assert.equal((await withSe('empty.txt', emptySe)).status, 200);
    await u.storage.deleteDevice('laptop').expect(200);
    await u.storage.putDevice('laptop').expect(200);
    await u.storage.putFile('laptop', 'empty.txt', 'private now').expect(201);
    dead(await anonymous().get(emptyLink), 'link after device re-registration');
    dead(await withSe('empty.txt', emptySe), 'extension after device re-registration');

    // an extension for the file docs/a.txt opens that file, not a folder docs/a.txt/ (listing or zip)
    await u.storage.putFile('laptop', 'docs/a.txt', 'the file').expect(201);
    await u.storage.putFile('laptop', 'docs/a.txt/inner.txt', 'in the folder').expect(201);
    const fileSe = await extension('docs/a.txt');
    assert.equal((await bytes(withSe('docs/a.txt', fileSe)).expect(200)).body.toString(), 'the file');
    assert.equal((await withSe('docs/a.txt/', fileSe)).status, 403);
    assert.equal((await withSe('docs/a.txt/', fileSe, 'format=zip&')).status, 403);
    assert.equal((await withSe('docs/a.txt/inner.txt', fileSe)).status, 403);
    // and a folder gets no extension at all
    await as(u.username).get(`${u.root}/laptop/docs/a.txt/?format=session_extension&ip=127.0.0.1`).expect(400);
  });

  it('hostile paths: .., encoded slashes and NUL are 400; a malformed b32 is 404; nothing escapes the user storage', async () => {
    const u = await userWithFiles();
    for (const path of [
      '/laptop/Documents/..%2F..%2Fnotes.md',
      '/laptop/%2E%2E/notes.md',
      '/laptop/Documents%2Freport.txt',
      '/laptop/notes.md%00',
      '/laptop/%ZZ',
    ]) {
      const res = await as(u.username).get(`${u.root}${path}`);
      assert.equal(res.status, 400, `${path}: ${res.status} ${res.text}`);
      assert.equal(typeof res.body.reason, 'string');
    }
    for (const b of ['1', 'A', '!!!', 'AAA']) assert.equal((await as(u.username).get(`/storage/${b}/`)).status, 404, b);
  });

  it('the storage interface speaks JSON errors for every refusal and the listing of a device with many files streams whole', async () => {
    const u = await userWithFiles();
    // more than two pages of the catalog's listing (the e2e targets page at 100: BURROW_LISTING_PAGE_SIZE)
    const many = Number(LISTING_PAGE_SIZE_FOR_TESTS) * 2 + 60; // a multiple of the 20 sent at a time
    // 20 uploads at a time: the subject here is the listing; many concurrent writers are the
    // concurrency scenarios' (on FerretDB's SQLite backend 50 at once can pass the bus timeout)
    for (let i = 0; i < many; i += 20) {
      await Promise.all(
        Array.from({ length: 20 }, (_, j) =>
          u.storage.putFile('laptop', `many/f${String(i + j).padStart(5, '0')}.txt`, `#${i + j}`).expect(201),
        ),
      );
    }
    const res = await as(u.username).get(`${u.root}/laptop/many/`).expect(200);
    assert.equal(res.body.files.length, many);
    assert.equal(res.body.files[0].name, 'f00000.txt');
    assert.equal(res.body.files[many - 1].name, `f${String(many - 1).padStart(5, '0')}.txt`);
    assert.deepEqual(res.body.dirs, []);
  });

  it('share rooms: the room root (stats, dirs), folders, files, zips of a folder and of the whole room, no login; POST is 405; unknown or disabled rooms 404', async (t) => {
    const files = {
      'Photos/2024/beach.jpg': pattern(70_000, 3),
      'Photos/readme.txt': Buffer.from('photos'),
      'Docs/a.txt': Buffer.from('doc a'),
      'Private/secret.txt': Buffer.from('not shared'),
    };
    const shared = await userWithShareRoom(target(), api(), {
      files,
      room: { room_name: 'Holiday', room_description: 'Line one\nLine two', dirs: ['laptop/Photos/', 'laptop/Docs/'] },
    });
    const roomUrl = roomAddress(shared.room.url);
    assert.match(roomUrl, /^\/share\/[A-Z2-7]+\/[A-Za-z0-9_-]+\/$/);
    const anonymous = supertest(last());
    const root = await anonymous.get(roomUrl).expect(200);
    assert.equal(root.body.stats.room_name, 'Holiday');
    assert.equal(root.body.stats.room_description, 'Line one\nLine two');
    assert.equal(root.body.stats.number_of_files, 3);
    assert.equal(typeof root.body.stats.room_size, 'string');
    assert.equal(root.body.stats.firstname, 'Name');
    assert.deepEqual(root.body.dirs, [
      ['Photos', 'Photos/'],
      ['Docs', 'Docs/'],
    ]);
    const photos = await anonymous.get(`${roomUrl}Photos/`).expect(200);
    assert.deepEqual(photos.body.dirs, [['2024', '2024/']]);
    assert.deepEqual(
      photos.body.files.map((f: { name: string }) => f.name),
      ['readme.txt'],
    );
    const beach = await bytes(anonymous.get(`${roomUrl}Photos/2024/beach.jpg`)).expect(200);
    assert.ok(beach.body.equals(files['Photos/2024/beach.jpg']));
    const part = await bytes(anonymous.get(`${roomUrl}Photos/2024/beach.jpg`).set('Range', 'bytes=100-199')).expect(
      206,
    );
    assert.ok(part.body.equals(files['Photos/2024/beach.jpg'].subarray(100, 200)));
    // nothing outside the room's folders
    await anonymous.get(`${roomUrl}Private/`).expect(404);
    await anonymous
      .get(`${roomUrl}Photos/../Private/secret.txt`)
      .expect((res) => assert.ok([400, 404].includes(res.status)));
    // writes refused
    const post = await anonymous.post(`${roomUrl}Photos/readme.txt`).expect(405);
    assert.equal(typeof post.body.reason, 'string');
    // unknown rooms and share ids
    await anonymous.get(roomUrl.replace(/\/[^/]+\/$/, '/nosuchroom/')).expect(404);
    await anonymous.get('/share/AAAAAAAA/x/').expect(404);
    if (await hasUnzip()) {
      const zip = await bytes(anonymous.get(`${roomUrl}Photos/?format=zip`)).expect(200);
      const extracted = await unzipAll(zip.body);
      assert.deepEqual([...extracted.keys()].sort(), ['Photos/2024/beach.jpg', 'Photos/readme.txt']);
      assert.ok(extracted.get('Photos/2024/beach.jpg')!.equals(files['Photos/2024/beach.jpg']));
      const whole = await unzipAll((await bytes(anonymous.get(`${roomUrl}?format=zip`)).expect(200)).body);
      assert.deepEqual([...whole.keys()].sort(), ['Docs/a.txt', 'Photos/2024/beach.jpg', 'Photos/readme.txt']);
    } else t.diagnostic('unzip not installed: share-room zips not extracted');
    // the partner disables the room: gone for everyone
    const roomKey = shared.room.room_key;
    await api().post(`/users/${shared.username}/shares/${roomKey}?action=disable`, {}).expect(200);
    await anonymous.get(roomUrl).expect(404);
    // a second room with two folders of the same name labels the second one
    await shared.storage.putFile('laptop', 'Other/Photos/x.txt', 'x').expect(201);
    const twin = await createShareRoom(shared.storage, {
      room_name: 'Twins',
      dirs: ['laptop/Photos/', 'laptop/Other/Photos/'],
    });
    const twinRoot = await anonymous.get(roomAddress(twin.url)).expect(200);
    assert.deepEqual(twinRoot.body.dirs, [
      ['Photos', 'Photos/'],
      ['Photos (2)', 'Photos%20(2)/'],
    ]);
  });

  it('previews: an uploaded image gets previews listed as relative URLs (bare ?preview_<w> keys) that decode to images of that width', async () => {
    const u = await userWithFiles();
    const sharp = (await import('sharp')).default;
    const image = await sharp({
      create: { width: 600, height: 400, channels: 3, background: { r: 200, g: 80, b: 40 } },
    })
      .jpeg()
      .toBuffer();
    await u.storage.putFile('laptop', 'Pictures/red.jpg', image).expect(201);
    const listed = await eventually(
      async () => {
        const folder = await as(u.username).get(`${u.root}/laptop/Pictures/`).expect(200);
        const file = folder.body.files.find((f: { name: string }) => f.name === 'red.jpg');
        assert.ok(file?.preview_48 && file?.preview_228, 'previews not made yet');
        return file;
      },
      30_000,
      200,
    );
    assert.equal(listed.preview_48, 'red.jpg?preview_48');
    for (const [key, width] of [
      ['preview_48', 48],
      ['preview_228', 228],
    ] as const) {
      const res = await bytes(as(u.username, last()).get(`${u.root}/laptop/Pictures/${listed[key]}`)).expect(200);
      assert.match(String(res.headers['content-type']), /^image\/(jpeg|png)$/);
      assert.equal((await sharp(res.body).metadata()).width, width);
    }
    const versions = await as(u.username).get(`${u.root}/laptop/Pictures/red.jpg?format=version_info`).expect(200);
    assert.equal(versions.body[0].preview_48, 'red.jpg?version=0&preview_48');
    await bytes(as(u.username).get(`${u.root}/laptop/Pictures/${versions.body[0].preview_48}`)).expect(200);
    // the mobile app glues its cache-buster to the key (no `&`): still that preview, never the original
    for (const query of [`preview_48cb=${Date.now()}`, 'version=0&preview_48cb=1']) {
      const res = await bytes(as(u.username).get(`${u.root}/laptop/Pictures/red.jpg?${query}`)).expect(200);
      assert.match(String(res.headers['content-type']), /^image\/(jpeg|png)$/, query);
      assert.equal((await sharp(res.body).metadata()).width, 48, query);
    }
    // no 800 px preview of a 600 px image: a 404, not the original's bytes
    await as(u.username).get(`${u.root}/laptop/Pictures/red.jpg?preview_800cb=1`).expect(404);
    // digits that make another number are no preview key: the file itself
    assert.ok(
      (await bytes(as(u.username).get(`${u.root}/laptop/Pictures/red.jpg?preview_480=1`)).expect(200)).body.equals(
        image,
      ),
    );
  });
}
