/**
 * Every name a POSIX or Windows file system can hold is backed up, and stays exact everywhere it
 * shows up again (issue 17, defect 5): any character but `/` and NUL, backslashes and control
 * characters included, within the length limits (255 bytes a name). A name is followed through
 * the upload, the JSON listing (its `name`, and its relative `url` concatenated onto the folder's
 * as clients do), the download (bytes and the Content-Disposition name), the zip (extracted by
 * Info-ZIP's `unzip`, with `-^` so that it keeps control characters), the single-file link and the
 * storage browser's page (the link's text, and its href resolved as a browser resolves it: WHATWG
 * URLs turn a raw backslash into a slash, so the page must percent-encode it).
 */
import { parse as parseDisposition } from 'content-disposition';
import assert from 'node:assert/strict';
import { it } from 'node:test';
import supertest from 'supertest';
import { partnerApi } from '../harness/client.js';
import { bytes, hasUnzip, unzipAll } from '../harness/http-bytes.js';
import { storageApi } from '../harness/storage-client.js';
import { assertError, createUser, unique } from './accounts-fixtures.js';
import type { ScenarioContext } from './scenarios.js';

const PASSWORD = 'user-password-1';

/** Names real file systems hold; two differ only by Unicode normalisation and must stay two. */
export const HARD_NAMES = [
  'back\\slash.txt',
  'C:\\Users\\me\\report.doc',
  '\\leading backslash',
  'trailing backslash\\',
  'tab\tand\nnewline\rreturn',
  'bell\x07 escape\x1b delete\x7f',
  'quote" apostrophe\' backtick`',
  '<img src=x onerror=alert(1)> &amp; entity',
  '100% %2F %00 literal percent',
  'query?hash#semi;colon',
  'colon:star*pipe|',
  ' leading space',
  'trailing space ',
  'trailing dot.',
  '...',
  '.hidden',
  '-dash',
  '~tilde',
  '+plus=equals&and',
  'CON',
  'é composed',
  'e\u0301 composed',
  'emoji 😀 中文 ü',
  // 255 bytes: the longest name a segment may have
  `${'ü'.repeat(125)}x.txt`,
];

/** The five characters the pages escape, and back. */
const unescapeHtml = (text: string) =>
  text.replace(
    /&(amp|lt|gt|quot|#39|#96);/g,
    (_, e: string) => ({ amp: '&', lt: '<', gt: '>', quot: '"', '#39': "'", '#96': '`' })[e]!,
  );

const contentOf = (name: string) => Buffer.from(`the bytes of ${JSON.stringify(name)}`);

export function fileNamesScenarios({ target }: ScenarioContext) {
  it('names with backslashes, control characters and every other legal character are stored, listed, downloaded, zipped, linked and shown exactly', async (t) => {
    assert.ok(
      HARD_NAMES.every((n) => Buffer.byteLength(n) <= 255),
      'every test name fits the limit',
    );
    const username = unique('fn');
    await createUser(partnerApi(target()), { username, password: PASSWORD });
    const storage = storageApi(target(), username, PASSWORD);
    await storage.putDevice('laptop').expect(200);
    const folder = 'Names \\ folder';
    for (const name of HARD_NAMES) {
      const res = await storage.putFile('laptop', `${folder}/${name}`, contentOf(name));
      assert.equal(res.status, 201, `${JSON.stringify(name)}: ${res.status} ${res.text}`);
      assert.equal(res.body.name, name);
    }

    for (const url of target().urls) {
      const agent = supertest(url);
      const get = (path: string) => agent.get(path).auth(username, PASSWORD);
      // the device lists the folder by its exact name, and its relative url leads to it
      const device = await get(`${storage.root}/laptop/`).expect(200);
      const pair = (device.body.dirs as [string, string][]).find(([display]) => display === folder);
      assert.ok(pair, `the folder is listed by its name: ${JSON.stringify(device.body.dirs)}`);
      const folderUrl = `${storage.root}/laptop/${pair[1]}`;
      const listing = await get(folderUrl).expect(200);
      const files = listing.body.files as { name: string; url: string }[];
      assert.deepEqual(files.map((f) => f.name).sort(), [...HARD_NAMES].sort());
      for (const file of files) {
        const got = await bytes(get(folderUrl + file.url)).expect(200);
        assert.deepEqual(got.body, contentOf(file.name), JSON.stringify(file.name));
        assert.equal(
          parseDisposition(got.headers['content-disposition']).parameters.filename,
          file.name,
          'the download keeps its name',
        );
      }

      // the storage browser: each file's link text is its name, its href (as a browser resolves it) downloads it
      const page = await get(folderUrl).set('Accept', 'text/html').expect(200);
      const anchors = [
        ...page.text.matchAll(/<span class="name"><a href="([^"]*)" download>([^<]*)<\/a><\/span>/g),
      ].map((m) => ({ href: unescapeHtml(m[1]), text: unescapeHtml(m[2]) }));
      assert.deepEqual(anchors.map((a) => a.text).sort(), [...HARD_NAMES].sort());
      for (const anchor of anchors) {
        const resolved = new URL(anchor.href, `${url}${folderUrl}`);
        const got = await bytes(agent.get(resolved.pathname + resolved.search).auth(username, PASSWORD)).expect(200);
        assert.deepEqual(got.body, contentOf(anchor.text), `the page's link for ${JSON.stringify(anchor.text)}`);
      }
    }

    // single-file links carry the name and serve the bytes
    for (const name of ['back\\slash.txt', 'tab\tand\nnewline\rreturn', '100% %2F %00 literal percent']) {
      const fileUrl = `${storage.root}/laptop/${[folder, name].map(encodeURIComponent).join('/')}`;
      const link = await supertest(target().url).post(fileUrl).auth(username, PASSWORD).expect(200);
      const got = await bytes(
        supertest(target().urls[target().urls.length - 1]).get(new URL(link.text, 'http://x').pathname),
      ).expect(200);
      assert.deepEqual(got.body, contentOf(name));
      assert.equal(parseDisposition(got.headers['content-disposition']).parameters.filename, name);
    }

    // the zip extracts with Info-ZIP to the same names and bytes
    if (!(await hasUnzip())) {
      t.diagnostic('unzip not installed: the zip extraction part is skipped (apt-get install unzip)');
      return;
    }
    const zip = await bytes(
      supertest(target().url)
        .get(`${storage.root}/laptop/${encodeURIComponent(folder)}/?format=zip`)
        .auth(username, PASSWORD),
    ).expect(200);
    const extracted = await unzipAll(zip.body, { keepControlCharacters: true });
    assert.deepEqual([...extracted.keys()].sort(), HARD_NAMES.map((n) => `${folder}/${n}`).sort());
    for (const name of HARD_NAMES)
      assert.deepEqual(extracted.get(`${folder}/${name}`), contentOf(name), JSON.stringify(name));
  });

  it('a file and a folder of the same name both come out of a zip: the file is named apart, `<name> (file)`, unique beside it', async (t) => {
    const username = unique('fn');
    await createUser(partnerApi(target()), { username, password: PASSWORD });
    const storage = storageApi(target(), username, PASSWORD);
    await storage.putDevice('laptop').expect(200);
    const files: Record<string, string> = {
      'Twins/report': 'the file called report',
      'Twins/report/draft.txt': 'a file in the folder called report',
      'Twins/report (file)': 'a real file that already has the obvious name',
      'Twins/notes.txt': 'no twin',
    };
    for (const [path, content] of Object.entries(files)) await storage.putFile('laptop', path, content).expect(201);
    // the listing shows both, as the catalog holds them
    const listing = await supertest(target().url)
      .get(`${storage.root}/laptop/Twins/`)
      .auth(username, PASSWORD)
      .expect(200);
    assert.deepEqual(
      listing.body.dirs.map((d: [string, string]) => d[0]),
      ['report'],
    );
    assert.ok(listing.body.files.some((f: { name: string }) => f.name === 'report'));
    if (!(await hasUnzip())) {
      t.diagnostic('unzip not installed: the extraction is skipped (apt-get install unzip)');
      return;
    }
    for (const url of target().urls) {
      const zip = await bytes(
        supertest(url).get(`${storage.root}/laptop/Twins/?format=zip`).auth(username, PASSWORD),
      ).expect(200);
      const extracted = await unzipAll(zip.body);
      assert.deepEqual(Object.fromEntries([...extracted].map(([path, content]) => [path, content.toString()])), {
        'Twins/report (file 2)': files['Twins/report'],
        'Twins/report (file)': files['Twins/report (file)'],
        'Twins/report/draft.txt': files['Twins/report/draft.txt'],
        'Twins/notes.txt': files['Twins/notes.txt'],
      });
      // a HEAD and a resumed download agree with the whole
      const head = await supertest(url)
        .head(`${storage.root}/laptop/Twins/?format=zip`)
        .auth(username, PASSWORD)
        .expect(200);
      assert.equal(Number(head.headers['content-length']), zip.body.length);
      const tail = await bytes(
        supertest(url)
          .get(`${storage.root}/laptop/Twins/?format=zip`)
          .set('Range', 'bytes=100-')
          .auth(username, PASSWORD),
      ).expect(206);
      assert.ok(tail.body.equals(zip.body.subarray(100)));
    }
  });

  it('the names a file system cannot hold are refused with a 400 that says why', async () => {
    const username = unique('fn');
    await createUser(partnerApi(target()), { username, password: PASSWORD });
    const storage = storageApi(target(), username, PASSWORD);
    await storage.putDevice('laptop').expect(200);
    const put = (rawPath: string) =>
      supertest(target().url).put(`${storage.root}/laptop/${rawPath}`).auth(username, PASSWORD).send(Buffer.from('x'));
    const refusals: [string, RegExp][] = [
      [`${'a'.repeat(256)}`, /at most 255 bytes/],
      [`${'ü'.repeat(128)}`, /at most 255 bytes/],
      ['nul%00byte', /NUL/],
      ['dir/%2E%2E/x', /"\.\."|\.\./],
      ['a%2Fb', /slash/],
      [`${Array.from({ length: 65 }, (_, i) => `d${i}`).join('/')}/file`, /levels deep/],
    ];
    for (const [path, reason] of refusals) {
      const res = await put(path);
      assertError(res, 400);
      assert.match(res.body.reason, reason, `${path.slice(0, 40)}: ${res.body.reason}`);
    }
  });
}
