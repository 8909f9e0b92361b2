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
 *   bytes_stored; XML with a DTD or entities is a 400;
 * - hostile bodies (issue 33): a property or lock owner whose XML would pass its limit is a 413
 *   before anything large is built, a PROPFIND's names are answered with each namespace once,
 *   a resource takes a bounded number of locks and a refused one leaves the others, a
 *   namespace holding `}` or markup cannot break a PROPFIND (every answer here is parsed as XML),
 *   and what one user's dead properties hold and write a day is bounded (run with the small
 *   budgets of DAV_TEST_ENV).
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
import { SaxesParser } from 'saxes';
import { partnerApi } from '../harness/client.js';
import { davClient, type DavMethod, hasTool, rawRequest } from '../harness/dav-client.js';
import { storageApi } from '../harness/storage-client.js';
import { createUser, eventually, knownPlans, unique } from './accounts-fixtures.js';
import type { ScenarioContext } from './scenarios.js';

const run = promisify(execFile);

/**
 * The WebDAV block's settings: dead-property budgets small enough to reach in a few requests
 * (256 KiB held, 1 MiB written a day, per user); litmus and rclone stay far below them.
 */
export const DAV_TEST_ENV = {
  BURROW_DAV_PROPERTIES_MAX_BYTES_PER_USER: String(256 * 1024),
  BURROW_DAV_PROPERTY_WRITES_MAX_BYTES_PER_DAY: String(1024 * 1024),
};
const PASSWORD = 'user-password-1';
const METHODS: DavMethod[] = [
  'OPTIONS',
  'GET',
  'HEAD',
  'PUT',
  'DELETE',
  'PROPFIND',
  'PROPPATCH',
  'MKCOL',
  'COPY',
  'MOVE',
  'LOCK',
  'UNLOCK',
];
const LOCKINFO =
  '<?xml version="1.0"?><D:lockinfo xmlns:D="DAV:"><D:lockscope><D:exclusive/></D:lockscope><D:locktype><D:write/></D:locktype></D:lockinfo>';

/** litmus's per-suite summary: `<- summary for `basic': of 16 tests run: 16 passed, 0 failed. 100.0%`. */
function litmusSummaries(output: string): Map<string, { run: number; passed: number }> {
  const out = new Map<string, { run: number; passed: number }>();
  for (const m of output.matchAll(/summary for `(\w+)': of (\d+) tests run: (\d+) passed/g))
    out.set(m[1], { run: Number(m[2]), passed: Number(m[3]) });
  return out;
}

async function filesUnder(dir: string): Promise<Map<string, { sha: string; mtime: number; size: number }>> {
  const out = new Map<string, { sha: string; mtime: number; size: number }>();
  for (const entry of await readdir(dir, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const path = join(entry.parentPath, entry.name);
    const info = await stat(path);
    out.set(relative(dir, path), {
      sha: createHash('sha256')
        .update(await readFile(path))
        .digest('hex'),
      mtime: Math.floor(info.mtimeMs / 1000),
      size: info.size,
    });
  }
  return out;
}

/** A multistatus parsed as XML (throws unless well-formed): each response's href and the properties (`{ns}name`) it lists, by status. */
function parseMultistatus(xml: string): { href: string; props: Map<string, string[]> }[] {
  const parser = new SaxesParser({ xmlns: true });
  const responses: { href: string; props: Map<string, string[]> }[] = [];
  const stack: string[] = [];
  let text = '';
  let inProp: string[] = [];
  parser.on('opentag', (tag) => {
    const key = `{${tag.uri}}${tag.local}`;
    if (key === '{DAV:}response') responses.push({ href: '', props: new Map() });
    if (stack.at(-1) === '{DAV:}prop') inProp.push(key);
    if (key === '{DAV:}propstat') inProp = [];
    stack.push(key);
    text = '';
  });
  parser.on('text', (t) => (text += t));
  parser.on('closetag', () => {
    const key = stack.pop();
    const response = responses.at(-1);
    if (key === '{DAV:}href' && stack.at(-1) === '{DAV:}response' && response) response.href = text;
    if (key === '{DAV:}status' && stack.at(-1) === '{DAV:}propstat' && response)
      response.props.set(text.split(' ')[1], inProp);
  });
  parser.write(xml).close();
  return responses;
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
    const notes = stdout
      .split('\n')
      .filter((l) => /FAIL|SKIPPED|WARNING/.test(l))
      .map((l) => l.replace(/^.*?\d+\.\s+/, '').trim());
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
        ...process.env,
        RCLONE_CONFIG_BURROW_TYPE: 'webdav',
        RCLONE_CONFIG_BURROW_URL: `${target().url}/dav/${alice.username}/`,
        RCLONE_CONFIG_BURROW_VENDOR: 'owncloud',
        RCLONE_CONFIG_BURROW_USER: alice.username,
        RCLONE_CONFIG_BURROW_PASS: obscured.trim(),
        RCLONE_CONFIG: '/dev/null',
      };
      const rclone = (...args: string[]) => run('rclone', [...args, '-v'], { env, maxBuffer: 1 << 22 });
      await rclone('sync', src, 'burrow:laptop/rclone');
      const back = join(dir, 'back');
      await rclone('sync', 'burrow:laptop/rclone', back);
      assert.deepEqual(await filesUnder(back), await filesUnder(src));
      const again = await rclone('sync', src, 'burrow:laptop/rclone');
      assert.doesNotMatch(again.stderr, /Copied|Updated/, `the second sync transferred something:\n${again.stderr}`);
      // rclone compares hashes (the owncloud vendor's SHA-1 from oc:checksums), not sizes alone
      const stats = await rclone('check', src, 'burrow:laptop/rclone');
      assert.match(stats.stderr, /0 differences found/);
      assert.doesNotMatch(stats.stderr, /hashes could not be checked/, stats.stderr);
      assert.match(stats.stderr, /(\d+) matching files/);
      assert.equal(Number(/(\d+) matching files/.exec(stats.stderr)![1]), Object.keys(files).length);
      const sums = await rclone('hashsum', 'sha1', 'burrow:laptop/rclone');
      const md5s = await rclone('hashsum', 'md5', 'burrow:laptop/rclone');
      for (const [path, content] of Object.entries(files)) {
        assert.ok(
          sums.stdout.includes(`${createHash('sha1').update(content).digest('hex')}  ${path}`),
          `sha1 of ${path}:\n${sums.stdout}`,
        );
        assert.ok(
          md5s.stdout.includes(`${createHash('md5').update(content).digest('hex')}  ${path}`),
          `md5 of ${path}:\n${md5s.stdout}`,
        );
      }
      // a local change of the same size is found by its hash (a size-only check would pass it)
      await writeFile(join(src, 'a/b/c/deep.txt'), 'DEEP');
      const changed = await rclone('check', src, 'burrow:laptop/rclone').then(
        () => assert.fail('rclone check passed a changed file'),
        (error: { stderr?: string }) => error.stderr ?? '',
      );
      assert.match(changed, /1 differences found/);
      assert.match(changed, /deep\.txt/);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it("isolation: another user's paths are 404 through every method; COPY and MOVE cannot reach them", async () => {
    const theirs = `/dav/${bob.username}/laptop/private/secret.txt`;
    for (const method of METHODS) {
      let req = alice.dav.request(method, theirs);
      if (method === 'COPY' || method === 'MOVE')
        req = req.set('Destination', `/dav/${alice.username}/laptop/stolen.txt`);
      if (method === 'LOCK') req = req.set('Content-Type', 'application/xml').send(LOCKINFO);
      if (method === 'UNLOCK') req = req.set('Lock-Token', '<opaquelocktoken:00000000-0000-0000-0000-000000000000>');
      const res = await req;
      assert.equal(res.status, 404, `${method} ${theirs}: ${res.status}`);
    }
    for (const root of [`/dav/${bob.username}/`, `/dav/${bob.username}/laptop/`])
      assert.equal((await alice.dav.request('PROPFIND', root).set('Depth', '1')).status, 404);
    // a Destination in someone else's storage
    await alice.dav.request('PUT', `/dav/${alice.username}/laptop/mine.txt`).send('mine').expect(201);
    for (const method of ['COPY', 'MOVE'] as const) {
      const res = await alice.dav
        .request(method, `/dav/${alice.username}/laptop/mine.txt`)
        .set('Destination', `${target().url}/dav/${bob.username}/laptop/private/secret.txt`);
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
      const res = await alice.dav
        .request('COPY', `/dav/${alice.username}/laptop/mine.txt`)
        .set('Destination', destination);
      assert.equal(res.status, 400, `${destination}: ${res.status}`);
    }
    assert.equal(
      (await bob.dav.request('PROPFIND', `/dav/${bob.username}/laptop/x.txt`).set('Depth', '0')).status,
      404,
    );
  });

  it('PUT: X-OC-Mtime is kept and answered; no parent is a 409; past the quota is a 507 before the body; a folder is not a file (405)', async () => {
    const base = `/dav/${alice.username}/laptop`;
    const put = await alice.dav
      .request('PUT', `${base}/dated.txt`)
      .set('X-OC-Mtime', '1500000000')
      .send('dated')
      .expect(201);
    assert.equal(put.headers['x-oc-mtime'], 'accepted');
    const found = await alice.dav.request('PROPFIND', `${base}/dated.txt`).set('Depth', '0').expect(207);
    assert.match(
      found.text,
      new RegExp(`<D:getlastmodified>${new Date(1_500_000_000_000).toUTCString()}</D:getlastmodified>`),
    );
    const get = await alice.dav.request('GET', `${base}/dated.txt`).expect(200);
    assert.equal(get.headers['last-modified'], new Date(1_500_000_000_000).toUTCString());
    assert.equal(get.headers.etag, put.headers.etag);
    await alice.dav.request('PUT', `${base}/no/such/folder.txt`).send('x').expect(409);
    await alice.dav.request('MKCOL', `${base}/folder/`).expect(201);
    await alice.dav.request('PUT', `${base}/folder`).send('x').expect(405);
    // a declared length past the quota (plan bytes): refused before a byte is sent
    const refused = await rawRequest(target().url, 'PUT', `${base}/huge.bin`, {
      Authorization: `Basic ${Buffer.from(`${alice.username}:${PASSWORD}`).toString('base64')}`,
      'Content-Length': String(2 * 10 ** 11),
    });
    assert.equal(refused.status, 507, refused.body);
    const quota = await alice.dav
      .request('PROPFIND', `/dav/${alice.username}/`)
      .set('Depth', '0')
      .send(
        '<?xml version="1.0"?><D:propfind xmlns:D="DAV:"><D:prop><D:quota-used-bytes/><D:quota-available-bytes/></D:prop></D:propfind>',
      )
      .expect(207);
    assert.match(quota.text, /<D:quota-used-bytes>\d+<\/D:quota-used-bytes>/);
    assert.match(quota.text, /<D:quota-available-bytes>\d+<\/D:quota-available-bytes>/);
    // in a device, every collection listed carries the figures when they are asked for, and only then
    const QUOTA_PROPS =
      '<?xml version="1.0"?><D:propfind xmlns:D="DAV:"><D:prop><D:quota-used-bytes/><D:displayname/></D:prop></D:propfind>';
    const listed = await alice.dav.request('PROPFIND', `${base}/`).set('Depth', '1').send(QUOTA_PROPS).expect(207);
    const collections = listed.text
      .split('<D:response>')
      .filter((r) => r.includes('<D:href>') && r.includes('/</D:href>'));
    assert.ok(collections.length >= 2, 'the device folder and its folder');
    for (const r of collections) assert.match(r, /<D:quota-used-bytes>\d+<\/D:quota-used-bytes>/);
    const allprop = await alice.dav.request('PROPFIND', `${base}/`).set('Depth', '1').expect(207);
    assert.doesNotMatch(allprop.text, /quota-used-bytes/, 'allprop leaves the quota out (RFC 4331)');
    assert.match(allprop.text, /<D:displayname>/);
  });

  it("checksums as ownCloud clients read them: oc:checksums (SHA1 and MD5) in PROPFIND, OC-Checksum on GET; a client's PROPPATCH of them is accepted, Burrow's kept", async () => {
    const path = `/dav/${alice.username}/laptop/summed.txt`;
    const content = Buffer.from('checksummed content');
    const sha1 = createHash('sha1').update(content).digest('hex');
    const md5 = createHash('md5').update(content).digest('hex');
    await alice.dav.request('PUT', path).send(content).expect(201);
    const OC_PROPS =
      '<?xml version="1.0"?><d:propfind xmlns:d="DAV:" xmlns:oc="http://owncloud.org/ns"><d:prop><d:getcontentlength/><oc:checksums/></d:prop></d:propfind>';
    const found = await alice.dav.request('PROPFIND', path).set('Depth', '0').send(OC_PROPS).expect(207);
    assert.match(
      found.text,
      new RegExp(
        `<[a-z0-9]+:checksum xmlns:[a-z]+="http://owncloud.org/ns">SHA1:${sha1} MD5:${md5}</[a-z0-9]+:checksum>`,
      ),
      found.text,
    );
    const get = await alice.dav.request('GET', path).expect(200);
    assert.equal(get.headers['oc-checksum'], `SHA1:${sha1}`);
    // the storage interface's download says the same
    const storage = storageApi(target(), alice.username, PASSWORD);
    assert.equal(
      (await storage.agent.get(`${storage.root}/laptop/summed.txt`).auth(alice.username, PASSWORD).expect(200)).headers[
        'oc-checksum'
      ],
      `SHA1:${sha1}`,
    );
    // rclone's owncloud vendor sends its checksum with a modification time: accepted (200), not stored
    const patch = await alice.dav
      .request('PROPPATCH', path)
      .send(
        '<?xml version="1.0"?><D:propertyupdate xmlns:D="DAV:" xmlns:oc="http://owncloud.org/ns"><D:set><D:prop><oc:checksums><oc:checksum>SHA1:0000</oc:checksum></oc:checksums></D:prop></D:set></D:propertyupdate>',
      )
      .expect(207);
    assert.match(patch.text, /HTTP\/1\.1 200/);
    assert.match(
      (await alice.dav.request('PROPFIND', path).set('Depth', '0').send(OC_PROPS).expect(207)).text,
      new RegExp(`SHA1:${sha1} MD5:${md5}`),
    );
    // a folder has none (404 in its propstat), like ownCloud
    assert.match(
      (
        await alice.dav
          .request('PROPFIND', `/dav/${alice.username}/laptop/`)
          .set('Depth', '0')
          .send(OC_PROPS)
          .expect(207)
      ).text,
      /404/,
    );
  });

  it('an interrupted PUT leaves nothing: the old version is served whole', async () => {
    const path = `/dav/${alice.username}/laptop/interrupted.bin`;
    const old = randomBytes(1000);
    await alice.dav.request('PUT', path).send(old).expect(201);
    const { hostname, port } = new URL(target().url);
    await new Promise<void>((resolve) => {
      const req = http.request({
        host: hostname,
        port,
        method: 'PUT',
        path,
        headers: {
          Authorization: `Basic ${Buffer.from(`${alice.username}:${PASSWORD}`).toString('base64')}`,
          'Content-Length': String(10 * 1024 * 1024),
        },
      });
      req.on('error', () => resolve());
      req.on('close', () => resolve());
      req.write(randomBytes(1024 * 1024), () => setTimeout(() => req.destroy(), 200));
    });
    const got = await alice.dav
      .request('GET', path)
      .buffer(true)
      .parse((res, done) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => done(null, Buffer.concat(chunks)));
      })
      .expect(200);
    assert.ok(Buffer.compare(got.body as Buffer, old) === 0, 'the old version, whole');
    const versions = await alice.dav.request('PROPFIND', path).set('Depth', '0').expect(207);
    assert.match(versions.text, /<D:getcontentlength>1000<\/D:getcontentlength>/);
  });

  it("a MOVE keeps the partner's view of the user's stored bytes; a COPY adds the copy's", async () => {
    const api = partnerApi(target());
    const base = `/dav/${alice.username}/laptop`;
    const stored = async () => (await api.get(`/users/${alice.username}`).expect(200)).body.bytes_stored as number;
    // bytes_stored reaches the accounts service from the catalog's usage events, after the upload's
    // answer: wait until it counts the upload (a run read it before, and the MOVE seemed to add 4 KiB)
    const start = await stored();
    await alice.dav.request('PUT', `${base}/moving.bin`).send(randomBytes(4096)).expect(201);
    const before = await eventually(async () => {
      const now = await stored();
      assert.ok(now >= start + 4096, `bytes_stored ${now} does not count the upload yet (${start} before it)`);
      return now;
    }, 15_000);
    await alice.dav.request('MOVE', `${base}/moving.bin`).set('Destination', `${base}/moved.bin`).expect(201);
    await eventually(async () => assert.equal(await stored(), before), 15_000);
    await alice.dav.request('COPY', `${base}/moved.bin`).set('Destination', `${base}/copied.bin`).expect(201);
    await eventually(async () => assert.equal(await stored(), before + 4096), 15_000);
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
    const patch = await alice.dav
      .request('PROPPATCH', `/dav/${alice.username}/laptop/mine.txt`)
      .send(
        '<!DOCTYPE p [<!ENTITY x "y">]><D:propertyupdate xmlns:D="DAV:"><D:set><D:prop><z xmlns="urn:z">&x;</z></D:prop></D:set></D:propertyupdate>',
      );
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

  const freshUser = async () => {
    const api = partnerApi(target());
    const username = unique('davh');
    await createUser(api, { username, password: PASSWORD, plan_id: (await knownPlans(api)).small.plan_id });
    const dav = davClient(target().url, username, PASSWORD);
    await dav.request('MKCOL', `/dav/${username}/laptop/`).expect(201);
    await dav.request('PUT', `/dav/${username}/laptop/f.txt`).send('f').expect(201);
    return { username, dav };
  };

  it('a property, a lock owner or the names of a PROPFIND that would pass their limits (a long namespace on 6,000 elements) are a 413 at once; a PROPFIND writes each namespace it names once', async () => {
    const { username, dav } = await freshUser();
    // a 16 KiB namespace (with `&amp;`, which is written back as such) on 6,000 empty siblings:
    // written with a declaration on each, ~100 MB from a 100 KB body (the reported attack: 800 KiB, 4.9 GB)
    const ns = `urn:${'a&amp;'.repeat((16 * 1024) / 5)}`;
    const empties = '<Z:e/>'.repeat(6000);
    const patch = await dav
      .request('PROPPATCH', `/dav/${username}/laptop/f.txt`)
      .set('Content-Type', 'application/xml')
      .send(
        `<?xml version="1.0"?><D:propertyupdate xmlns:D="DAV:" xmlns:Z="${ns}"><D:set><D:prop><Z:p>${empties}</Z:p></D:prop></D:set></D:propertyupdate>`,
      );
    assert.equal(patch.status, 413, patch.text.slice(0, 300));
    assert.match(patch.body.reason, /properties set take more than/);
    const lock = await dav
      .request('LOCK', `/dav/${username}/laptop/f.txt`)
      .set('Content-Type', 'application/xml')
      .send(
        `<?xml version="1.0"?><D:lockinfo xmlns:D="DAV:" xmlns:Z="${ns}"><D:lockscope><D:shared/></D:lockscope><D:locktype><D:write/></D:locktype><D:owner>${empties}</D:owner></D:lockinfo>`,
      );
    assert.equal(lock.status, 413, lock.text.slice(0, 300));
    assert.match(lock.body.reason, /owner takes at most/);
    // nothing was locked by the refused LOCK, nor made: a LOCK on a new path refused the same way makes no file
    await dav.request('PUT', `/dav/${username}/laptop/f.txt`).send('unlocked').expect(204);
    const unmade = await dav
      .request('LOCK', `/dav/${username}/laptop/new.txt`)
      .set('Content-Type', 'application/xml')
      .send(
        `<?xml version="1.0"?><D:lockinfo xmlns:D="DAV:"><D:lockscope><D:exclusive/></D:lockscope><D:locktype><D:write/></D:locktype><D:owner>${'"'.repeat(8192)}</D:owner></D:lockinfo>`,
      );
    assert.equal(unmade.status, 413);
    assert.equal((await dav.request('PROPFIND', `/dav/${username}/laptop/new.txt`).set('Depth', '0')).status, 404);
    // missing properties: 6,000 names in the namespace (each key would hold it) are a 413 too
    const names = (count: number) => Array.from({ length: count }, (_, i) => `<Z:m${i}/>`).join('');
    const refused = await dav
      .request('PROPFIND', `/dav/${username}/laptop/`)
      .set('Depth', '1')
      .set('Content-Type', 'application/xml')
      .send(
        `<?xml version="1.0"?><D:propfind xmlns:D="DAV:" xmlns:Z="${ns}"><D:prop>${names(6000)}</D:prop></D:propfind>`,
      );
    assert.equal(refused.status, 413, refused.text.slice(0, 300));
    assert.match(refused.body.reason, /properties a request names/);
    // 800 names in a namespace of some length (~53,000 characters in all): answered with it declared once
    const space = `http://example.com/${'n'.repeat(40)}/`;
    const body = `<?xml version="1.0"?><D:propfind xmlns:D="DAV:" xmlns:Z="${space}"><D:prop>${names(800)}</D:prop></D:propfind>`;
    const found = await dav
      .request('PROPFIND', `/dav/${username}/laptop/`)
      .set('Depth', '1')
      .set('Content-Type', 'application/xml')
      .send(body)
      .expect(207);
    assert.equal(found.text.split(space).length - 1, 1, 'the namespace is written once');
    const responses = parseMultistatus(found.text);
    assert.equal(responses.length, 2);
    for (const r of responses) assert.equal(r.props.get('404')?.length, 800);
    assert.equal(responses[0].props.get('404')?.[799], `{${space}}m799`);
    await dav.request('GET', `/dav/${username}/laptop/f.txt`).expect(200);
  });

  it('locks: an owner past 4 KiB is a 413; a resource takes 10 locks and an 11th is a 423 that leaves the ten, owners and all', async () => {
    const { username, dav } = await freshUser();
    const file = `/dav/${username}/laptop/f.txt`;
    const lockinfo = (owner: string) =>
      `<?xml version="1.0"?><D:lockinfo xmlns:D="DAV:"><D:lockscope><D:shared/></D:lockscope><D:locktype><D:write/></D:locktype><D:owner>${owner}</D:owner></D:lockinfo>`;
    // the reported attack's owner: ~1 MiB of `"` (six bytes each if escaped)
    const huge = await dav
      .request('LOCK', file)
      .set('Content-Type', 'application/xml')
      .set('Depth', '0')
      .send(lockinfo('"'.repeat(1000 * 1024)));
    assert.equal(huge.status, 413);
    const tokens: string[] = [];
    for (let i = 0; i < 10; i++) {
      const res = await dav
        .request('LOCK', file)
        .set('Content-Type', 'application/xml')
        .set('Depth', '0')
        .send(lockinfo(`<D:href>client ${i} "quoted"</D:href>`))
        .expect(200);
      tokens.push(/^<(.+)>$/.exec(res.headers['lock-token'])![1]);
      assert.match(res.text, new RegExp(`client ${i} "quoted"`));
    }
    const eleventh = await dav
      .request('LOCK', file)
      .set('Content-Type', 'application/xml')
      .set('Depth', '0')
      .send(lockinfo('<D:href>one too many</D:href>'));
    assert.equal(eleventh.status, 423);
    const shown = await dav
      .request('PROPFIND', file)
      .set('Depth', '0')
      .set('Content-Type', 'application/xml')
      .send('<?xml version="1.0"?><D:propfind xmlns:D="DAV:"><D:prop><D:lockdiscovery/></D:prop></D:propfind>')
      .expect(207);
    parseMultistatus(shown.text);
    for (let i = 0; i < 10; i++)
      assert.match(
        shown.text,
        new RegExp(`<(\\w+):href xmlns:\\1="DAV:">client ${i} "quoted"</\\1:href>`),
        `owner ${i} shown`,
      );
    assert.equal(shown.text.split('<D:activelock>').length - 1, 10);
    // the locks still bind and still work
    await dav.request('PUT', file).send('no token').expect(423);
    await dav.request('PUT', file).set('If', `(<${tokens[3]}>)`).send('with a token').expect(204);
    await dav.request('UNLOCK', file).set('Lock-Token', `<${tokens[0]}>`).expect(204);
    await dav
      .request('LOCK', file)
      .set('Content-Type', 'application/xml')
      .set('Depth', '0')
      .send(lockinfo('<D:href>room again</D:href>'))
      .expect(200);
  });

  it('a namespace holding `}` and markup cannot break a PROPFIND: the property comes back under its own namespace, and the answer is well-formed XML', async () => {
    const { username, dav } = await freshUser();
    await dav.request('MKCOL', `/dav/${username}/laptop/folder/`).expect(201);
    const evil =
      'urn:q}"></D:prop><D:status>HTTP/1.1 200 OK</D:status></D:propstat></D:response><D:response><D:href>/forged</D:href><D:propstat><D:prop><x:y';
    const escaped = evil
      .replaceAll('&', '&amp;')
      .replaceAll('"', '&quot;')
      .replaceAll('<', '&lt;')
      .replaceAll('>', '&gt;');
    await dav
      .request('PROPPATCH', `/dav/${username}/laptop/folder/`)
      .set('Content-Type', 'application/xml')
      .send(
        `<?xml version="1.0"?><D:propertyupdate xmlns:D="DAV:" xmlns:x="${escaped}"><D:set><D:prop><x:p>value</x:p></D:prop></D:set></D:propertyupdate>`,
      )
      .expect(207);
    for (const request of [
      '', // allprop
      '<?xml version="1.0"?><D:propfind xmlns:D="DAV:"><D:propname/></D:propfind>',
      `<?xml version="1.0"?><D:propfind xmlns:D="DAV:" xmlns:x="${escaped}"><D:prop><x:p/></D:prop></D:propfind>`,
    ]) {
      const res = await dav
        .request('PROPFIND', `/dav/${username}/laptop/`)
        .set('Depth', '1')
        .set('Content-Type', 'application/xml')
        .send(request)
        .expect(207);
      const responses = parseMultistatus(res.text);
      assert.deepEqual(
        responses.map((r) => r.href).sort(),
        [`/dav/${username}/laptop/`, `/dav/${username}/laptop/f.txt`, `/dav/${username}/laptop/folder/`].sort(),
      );
      const folder = responses.find((r) => r.href.endsWith('/folder/'))!;
      assert.ok(
        folder.props.get('200')?.includes(`{${evil}}p`),
        `${request || 'allprop'}: ${[...(folder.props.get('200') ?? [])].join(', ')}`,
      );
    }
  });

  it('dead properties are bounded per user: what they hold (207 with 507 past it, freed by a DELETE) and what they write a day (429 with Retry-After); bytes_stored is not theirs', async () => {
    const { username, dav } = await freshUser();
    const api = partnerApi(target());
    const patch = (path: string, n: number) =>
      dav
        .request('PROPPATCH', `/dav/${username}/laptop/${path}`)
        .set('Content-Type', 'application/xml')
        .send(
          `<?xml version="1.0"?><D:propertyupdate xmlns:D="DAV:"><D:set><D:prop><big xmlns="urn:x">${n}:${'v'.repeat(60_000)}</big></D:prop></D:set></D:propertyupdate>`,
        );
    const statusOf = (res: { status: number; text: string }) =>
      res.status === 207 ? parseMultistatus(res.text)[0].props.keys().next().value : String(res.status);
    // the user's one-byte f.txt: accounts counts it once the catalog's event reaches its read models
    const stored = await eventually(async () => {
      const bytes = (await api.get(`/users/${username}`).expect(200)).body.bytes_stored as number;
      assert.equal(bytes, 1, 'f.txt counted');
      return bytes;
    });
    // held: 256 KiB is four 60 KB properties; the fifth file's is refused
    for (const f of ['a', 'b', 'c', 'd', 'e'])
      await dav.request('PUT', `/dav/${username}/laptop/${f}.txt`).send(f).expect(201);
    for (const f of ['a', 'b', 'c', 'd']) assert.equal(statusOf(await patch(`${f}.txt`, 0)), '200', f);
    assert.equal(statusOf(await patch('e.txt', 0)), '507');
    await dav.request('DELETE', `/dav/${username}/laptop/a.txt`).expect(204);
    assert.equal(statusOf(await patch('e.txt', 0)), '200', 'a deleted file frees what its properties took');
    // written: the same value again costs nothing; new values count until 1 MiB a day (5 x 60 KB so far)
    for (let i = 0; i < 20; i++) assert.equal(statusOf(await patch('e.txt', 0)), '200');
    let n = 1;
    for (; n < 40; n++) {
      const res = await patch('e.txt', n);
      if (res.status === 429) {
        assert.ok(Number(res.headers['retry-after']) > 0);
        assert.match(res.body.reason, /a day/);
        break;
      }
      assert.equal(statusOf(res), '200');
    }
    // ~60 KB a set: 17 fit in 1 MiB, 5 were written above, so the 13th rewrite is refused
    assert.equal(n, 13, `refused after ${n - 1} rewrites`);
    const shown = await dav
      .request('PROPFIND', `/dav/${username}/laptop/e.txt`)
      .set('Depth', '0')
      .set('Content-Type', 'application/xml')
      .send('<?xml version="1.0"?><D:propfind xmlns:D="DAV:"><D:prop><big xmlns="urn:x"/></D:prop></D:propfind>')
      .expect(207);
    assert.match(shown.text, new RegExp(`>${n - 1}:v{60000}<`), 'the last accepted value is kept');
    const after = (await api.get(`/users/${username}`).expect(200)).body.bytes_stored as number;
    assert.ok(after - stored <= 5, `bytes_stored counts the five one-byte files only: +${after - stored}`);
  });
}
