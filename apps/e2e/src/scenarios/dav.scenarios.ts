/**
 * WebDAV (`/dav/<user>/`) end to end, in both modes:
 * - Debian's litmus compliance suite (basic, copymove, props, locks) against a fresh device;
 *   skipped, saying why, when litmus is not installed (`apt-get install -y litmus`);
 * - an rclone round trip with the owncloud vendor (nested folders, unicode and emoji names, a
 *   50 MB file, an empty file): byte-identical back, modification times kept to the second, and
 *   a second sync that transfers nothing;
 * - isolation: another user's paths are 404 through every method, and a COPY or MOVE cannot reach
 *   them; traversal in paths and in `Destination` is refused;
 * - PUT: X-OC-Mtime kept and answered, 409 without a parent, 507 past the quota before a byte is
 *   read, an interrupted upload leaves the old version whole; a move keeps the partner's
 *   bytes_stored; XML with a DTD or entities is a 400.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { mkdir, mkdtemp, readdir, readFile, rm, stat, utimes, writeFile } from 'node:fs/promises';
import http from 'node:http';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { before, it } from 'node:test';
import { promisify } from 'node:util';
import { partnerApi } from '../harness/client.js';
import { davClient, type DavMethod, hasTool, rawRequest } from '../harness/dav-client.js';
import { createUser, knownPlans, unique } from './accounts-fixtures.js';
import type { ScenarioContext } from './scenarios.js';

const run = promisify(execFile);
const PASSWORD = 'user-password-1';
const METHODS: DavMethod[] = ['OPTIONS', 'GET', 'HEAD', 'PUT', 'DELETE', 'PROPFIND', 'PROPPATCH', 'MKCOL', 'COPY', 'MOVE', 'LOCK', 'UNLOCK'];
const LOCKINFO = '<?xml version="1.0"?><D:lockinfo xmlns:D="DAV:"><D:lockscope><D:exclusive/></D:lockscope><D:locktype><D:write/></D:locktype></D:lockinfo>';

/** litmus's per-suite summary: `<- summary for `basic': of 16 tests run: 16 passed, 0 failed. 100.0%`. */
function litmusSummaries(output: string): Map<string, { run: number; passed: number }> {
  const out = new Map<string, { run: number; passed: number }>();
  for (const m of output.matchAll(/summary for `(\w+)': of (\d+) tests run: (\d+) passed/g)) out.set(m[1], { run: Number(m[2]), passed: Number(m[3]) });
  return out;
}

async function filesUnder(dir: string): Promise<Map<string, { sha: string; mtime: number; size: number }>> {
  const out = new Map<string, { sha: string; mtime: number; size: number }>();
  for (const entry of await readdir(dir, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const path = join(entry.parentPath, entry.name);
    const info = await stat(path);
    out.set(relative(dir, path), { sha: createHash('sha256').update(await readFile(path)).digest('hex'), mtime: Math.floor(info.mtimeMs / 1000), size: info.size });
  }
  return out;
}

export function davScenarios({ target }: ScenarioContext) {
  let alice: { username: string; dav: ReturnType<typeof davClient> };
  let bob: { username: string; dav: ReturnType<typeof davClient> };

  before(async () => {
    const api = partnerApi(target());
    // a plan with a quota (100 GB): the 507 test declares more than that
    const plan = (await knownPlans(api)).small.plan_id;
    const make = async () => {
      const username = unique('dav');
      await createUser(api, { username, password: PASSWORD, plan_id: plan });
      return { username, dav: davClient(target().url, username, PASSWORD) };
    };
    alice = await make();
    bob = await make();
    for (const u of [alice, bob]) await u.dav.request('MKCOL', `/dav/${u.username}/laptop/`).expect(201);
    await bob.dav.request('MKCOL', `/dav/${bob.username}/laptop/private/`).expect(201);
    await bob.dav.request('PUT', `/dav/${bob.username}/laptop/private/secret.txt`).send('bob only').expect(201);
  });

  it('litmus: basic, copymove and props pass 100%; locks as far as litmus goes (skipped, saying why, without litmus)', async (t) => {
    if (!(await hasTool('litmus'))) {
      t.skip('litmus is not installed (apt-get install -y litmus)');
      return;
    }
    const url = `${target().url}/dav/${alice.username}/laptop/`;
    const { stdout } = await run('litmus', ['-k', url, alice.username, PASSWORD], {
      env: { ...process.env, TESTS: 'basic copymove props locks' },
      maxBuffer: 1 << 20,
    }).catch((error: { stdout?: string }) => ({ stdout: error.stdout ?? '' }));
    const summaries = litmusSummaries(stdout);
    const notes = stdout.split('\n').filter((l) => /FAIL|SKIPPED|WARNING/.test(l)).map((l) => l.replace(/^.*?\d+\.\s+/, '').trim());
    for (const note of notes) t.diagnostic(`litmus: ${note}`);
    for (const suite of ['basic', 'copymove', 'props', 'locks']) {
      const s = summaries.get(suite);
      assert.ok(s, `litmus ran no ${suite} suite:\n${stdout.slice(-2000)}`);
      t.diagnostic(`litmus ${suite}: ${s.passed}/${s.run}`);
      assert.equal(s.passed, s.run, `litmus ${suite}: ${notes.join('; ')}`);
    }
  });

  it('rclone (owncloud vendor) round trip: nested, unicode and emoji names, 50 MB and empty files come back byte-identical with their mtimes; a second sync transfers nothing', async (t) => {
    if (!(await hasTool('rclone', 'version'))) {
      t.skip('rclone is not installed (apt-get install -y rclone)');
      return;
    }
    const dir = await mkdtemp(join(tmpdir(), 'burrow-rclone-'));
    try {
      const src = join(dir, 'src');
      const files: Record<string, Buffer> = {
        'a/b/c/deep.txt': Buffer.from('deep'),
        'ünïcødé/📦 box.txt': Buffer.from('emoji'),
        'Ωmega/日本語 ファイル.txt': Buffer.from('unicode'),
        'empty.txt': Buffer.alloc(0),
        'big.bin': randomBytes(50 * 1024 * 1024),
      };
      let mtime = 1_600_000_000;
      for (const [path, content] of Object.entries(files)) {
        await mkdir(join(src, path, '..'), { recursive: true });
        await writeFile(join(src, path), content);
        mtime += 12_345;
        await utimes(join(src, path), mtime, mtime);
      }
      const { stdout: obscured } = await run('rclone', ['obscure', PASSWORD]);
      const env = {
        ...process.env, RCLONE_CONFIG_BURROW_TYPE: 'webdav', RCLONE_CONFIG_BURROW_URL: `${target().url}/dav/${alice.username}/`,
        RCLONE_CONFIG_BURROW_VENDOR: 'owncloud', RCLONE_CONFIG_BURROW_USER: alice.username, RCLONE_CONFIG_BURROW_PASS: obscured.trim(), RCLONE_CONFIG: '/dev/null',
      };
      const rclone = (...args: string[]) => run('rclone', [...args, '-v'], { env, maxBuffer: 1 << 22 });
      await rclone('sync', src, 'burrow:laptop/rclone');
      const back = join(dir, 'back');
      await rclone('sync', 'burrow:laptop/rclone', back);
      assert.deepEqual(await filesUnder(back), await filesUnder(src));
      const again = await rclone('sync', src, 'burrow:laptop/rclone');
      assert.doesNotMatch(again.stderr, /Copied|Updated/, `the second sync transferred something:\n${again.stderr}`);
      const stats = await rclone('check', src, 'burrow:laptop/rclone', '--size-only');
      assert.match(stats.stderr, /0 differences found/);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it("isolation: another user's paths are 404 through every method; COPY and MOVE cannot reach them", async () => {
    const theirs = `/dav/${bob.username}/laptop/private/secret.txt`;
    for (const method of METHODS) {
      let req = alice.dav.request(method, theirs);
      if (method === 'COPY' || method === 'MOVE') req = req.set('Destination', `/dav/${alice.username}/laptop/stolen.txt`);
      if (method === 'LOCK') req = req.set('Content-Type', 'application/xml').send(LOCKINFO);
      if (method === 'UNLOCK') req = req.set('Lock-Token', '<opaquelocktoken:00000000-0000-0000-0000-000000000000>');
      const res = await req;
      assert.equal(res.status, 404, `${method} ${theirs}: ${res.status}`);
    }
    for (const root of [`/dav/${bob.username}/`, `/dav/${bob.username}/laptop/`]) assert.equal((await alice.dav.request('PROPFIND', root).set('Depth', '1')).status, 404);
    // a Destination in someone else's storage
    await alice.dav.request('PUT', `/dav/${alice.username}/laptop/mine.txt`).send('mine').expect(201);
    for (const method of ['COPY', 'MOVE'] as const) {
      const res = await alice.dav.request(method, `/dav/${alice.username}/laptop/mine.txt`).set('Destination', `${target().url}/dav/${bob.username}/laptop/private/secret.txt`);
      assert.equal(res.status, 404, method);
    }
    const secret = await bob.dav.request('GET', theirs).expect(200);
    assert.equal(secret.text, 'bob only');
  });

  it('traversal in paths and in Destination is refused with 400', async () => {
    const creds = `Basic ${Buffer.from(`${alice.username}:${PASSWORD}`).toString('base64')}`;
    for (const path of [
      `/dav/${alice.username}/laptop/../../${bob.username}/laptop/private/secret.txt`,
      `/dav/${alice.username}/laptop/%2e%2e/%2e%2e/${bob.username}/laptop/private/secret.txt`,
      `/dav/${alice.username}/laptop/a%2Fb`,
      `/dav/${alice.username}/laptop/nul%00`,
    ]) {
      const res = await rawRequest(target().url, 'PROPFIND', path, { Authorization: creds, Depth: '0' });
      assert.equal(res.status, 400, `${path}: ${res.status} ${res.body}`);
      assert.doesNotMatch(res.body, /bob only/);
    }
    for (const destination of [
      `/dav/${alice.username}/laptop/../../${bob.username}/laptop/x.txt`,
      `${target().url}/dav/${alice.username}/laptop/%2e%2e/%2e%2e/${bob.username}/laptop/x.txt`,
      `/dav/${alice.username}/laptop/a%2Fb`,
      '/elsewhere/x.txt',
    ]) {
      const res = await alice.dav.request('COPY', `/dav/${alice.username}/laptop/mine.txt`).set('Destination', destination);
      assert.equal(res.status, 400, `${destination}: ${res.status}`);
    }
    assert.equal((await bob.dav.request('PROPFIND', `/dav/${bob.username}/laptop/x.txt`).set('Depth', '0')).status, 404);
  });

  it('PUT: X-OC-Mtime is kept and answered; no parent is a 409; past the quota is a 507 before the body; a folder is not a file (405)', async () => {
    const base = `/dav/${alice.username}/laptop`;
    const put = await alice.dav.request('PUT', `${base}/dated.txt`).set('X-OC-Mtime', '1500000000').send('dated').expect(201);
    assert.equal(put.headers['x-oc-mtime'], 'accepted');
    const found = await alice.dav.request('PROPFIND', `${base}/dated.txt`).set('Depth', '0').expect(207);
    assert.match(found.text, new RegExp(`<D:getlastmodified>${new Date(1_500_000_000_000).toUTCString()}</D:getlastmodified>`));
    const get = await alice.dav.request('GET', `${base}/dated.txt`).expect(200);
    assert.equal(get.headers['last-modified'], new Date(1_500_000_000_000).toUTCString());
    assert.equal(get.headers.etag, put.headers.etag);
    await alice.dav.request('PUT', `${base}/no/such/folder.txt`).send('x').expect(409);
    await alice.dav.request('MKCOL', `${base}/folder/`).expect(201);
    await alice.dav.request('PUT', `${base}/folder`).send('x').expect(405);
    // a declared length past the quota (plan bytes): refused before a byte is sent
    const refused = await rawRequest(target().url, 'PUT', `${base}/huge.bin`, {
      Authorization: `Basic ${Buffer.from(`${alice.username}:${PASSWORD}`).toString('base64')}`, 'Content-Length': String(2 * 10 ** 11),
    });
    assert.equal(refused.status, 507, refused.body);
    const quota = await alice.dav.request('PROPFIND', `/dav/${alice.username}/`).set('Depth', '0')
      .send('<?xml version="1.0"?><D:propfind xmlns:D="DAV:"><D:prop><D:quota-used-bytes/><D:quota-available-bytes/></D:prop></D:propfind>').expect(207);
    assert.match(quota.text, /<D:quota-used-bytes>\d+<\/D:quota-used-bytes>/);
    assert.match(quota.text, /<D:quota-available-bytes>\d+<\/D:quota-available-bytes>/);
  });

  it('an interrupted PUT leaves nothing: the old version is served whole', async () => {
    const path = `/dav/${alice.username}/laptop/interrupted.bin`;
    const old = randomBytes(1000);
    await alice.dav.request('PUT', path).send(old).expect(201);
    const { hostname, port } = new URL(target().url);
    await new Promise<void>((resolve) => {
      const req = http.request({
        host: hostname, port, method: 'PUT', path,
        headers: { Authorization: `Basic ${Buffer.from(`${alice.username}:${PASSWORD}`).toString('base64')}`, 'Content-Length': String(10 * 1024 * 1024) },
      });
      req.on('error', () => resolve());
      req.on('close', () => resolve());
      req.write(randomBytes(1024 * 1024), () => setTimeout(() => req.destroy(), 200));
    });
    const got = await alice.dav.request('GET', path).buffer(true).parse((res, done) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => done(null, Buffer.concat(chunks)));
    }).expect(200);
    assert.ok(Buffer.compare(got.body as Buffer, old) === 0, 'the old version, whole');
    const versions = await alice.dav.request('PROPFIND', path).set('Depth', '0').expect(207);
    assert.match(versions.text, /<D:getcontentlength>1000<\/D:getcontentlength>/);
  });

  it("a MOVE keeps the partner's view of the user's stored bytes; a COPY adds the copy's", async () => {
    const api = partnerApi(target());
    const base = `/dav/${alice.username}/laptop`;
    await alice.dav.request('PUT', `${base}/moving.bin`).send(randomBytes(4096)).expect(201);
    const before = (await api.get(`/users/${alice.username}`).expect(200)).body.bytes_stored as number;
    await alice.dav.request('MOVE', `${base}/moving.bin`).set('Destination', `${base}/moved.bin`).expect(201);
    assert.equal((await api.get(`/users/${alice.username}`).expect(200)).body.bytes_stored, before);
    await alice.dav.request('COPY', `${base}/moved.bin`).set('Destination', `${base}/copied.bin`).expect(201);
    assert.equal((await api.get(`/users/${alice.username}`).expect(200)).body.bytes_stored, before + 4096);
  });

  it('XML with a document type (entities, external ones too) is a 400 and nothing is read', async () => {
    for (const body of [
      '<?xml version="1.0"?><!DOCTYPE d [<!ENTITY x SYSTEM "file:///etc/passwd">]><D:propfind xmlns:D="DAV:"><D:prop>&x;</D:prop></D:propfind>',
      `<?xml version="1.0"?><!DOCTYPE d [<!ENTITY a "aaaaaaaaaa">${Array.from({ length: 9 }, (_, i) => `<!ENTITY ${String.fromCharCode(98 + i)} "${`&${String.fromCharCode(97 + i)};`.repeat(10)}">`).join('')}]><D:propfind xmlns:D="DAV:"><D:prop>&j;</D:prop></D:propfind>`,
    ]) {
      const res = await alice.dav.request('PROPFIND', `/dav/${alice.username}/laptop/`).set('Depth', '0').send(body);
      assert.equal(res.status, 400);
      assert.doesNotMatch(res.text, /root:/);
    }
    const patch = await alice.dav.request('PROPPATCH', `/dav/${alice.username}/laptop/mine.txt`)
      .send('<!DOCTYPE p [<!ENTITY x "y">]><D:propertyupdate xmlns:D="DAV:"><D:set><D:prop><z xmlns="urn:z">&x;</z></D:prop></D:set></D:propertyupdate>');
    assert.equal(patch.status, 400);
  });

  it('PROPFIND: Depth infinity (and an absent Depth) is 403 with propfind-finite-depth', async () => {
    for (const depth of ['infinity', undefined]) {
      const req = alice.dav.request('PROPFIND', `/dav/${alice.username}/laptop/`);
      const res = await (depth ? req.set('Depth', depth) : req);
      assert.equal(res.status, 403);
      assert.match(res.text, /<D:propfind-finite-depth\/>/);
    }
  });
}
