/**
 * The web pages end to end: HTML escaping and Accept negotiation with supertest (no browser
 * needed), then a real headless Chromium (Debian's `chromium`, driven by playwright-core) in
 * standalone mode and, with NATS, multi-process mode: a share room, walking into a folder, its
 * thumbnails, downloading a file and a zip (bytes checked), logging in through the form, browsing,
 * an old version, sharing a file, creating a share room and opening it logged out, protecting it
 * with a password (the visitor's password form, a wrong and the right password, the room's files
 * then, another browser still asked, the password removed), logging out
 * and the back button showing nothing private; axe-core in every page (no serious or critical
 * violation) and screenshots at desktop and phone width in test-output/web/. And a page of another
 * site (a second local HTTP server) that tries to write with the Basic credentials the browser
 * cached, by a `text/plain` form and a no-cors `fetch`, and is refused (issue 33, item 2).
 */
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { mkdir, readFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { deflateSync } from 'node:zlib';
import supertest from 'supertest';
import { partnerApi } from './harness/client.js';
import { hasUnzip, unzipAll } from './harness/http-bytes.js';
import { startMultiProcess } from './harness/multi-process.js';
import { type TestTarget, startStandalone } from './harness/standalone.js';
import { b32, storageApi } from './harness/storage-client.js';
import { createUser, unique } from './scenarios/accounts-fixtures.js';
import { createShareRoom, roomAddress, type ShareRoomReply } from './scenarios/share-fixtures.js';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const NO_BROWSER = existsSync(CHROMIUM)
  ? false
  : `no Chromium at ${CHROMIUM}: install it with \`apt-get install -y chromium\` (or set CHROMIUM_PATH)`;
const OUT = join(new URL('../../..', import.meta.url).pathname, 'test-output', 'web');
const HTML = 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8';
const PASSWORD = 'user-password-1';

/** A real PNG (8-bit RGB, a gradient) built by hand: signature, IHDR, IDAT (zlib), IEND. */
function png(width: number, height: number): Buffer {
  const crcTable = Array.from({ length: 256 }, (_, n) => {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    return c >>> 0;
  });
  const crc = (buf: Buffer) => {
    let c = 0xffffffff;
    for (const b of buf) c = crcTable[(c ^ b) & 0xff] ^ (c >>> 8);
    return (c ^ 0xffffffff) >>> 0;
  };
  const chunk = (type: string, data: Buffer) => {
    const len = Buffer.alloc(4);
    len.writeUInt32BE(data.length);
    const body = Buffer.concat([Buffer.from(type, 'ascii'), data]);
    const sum = Buffer.alloc(4);
    sum.writeUInt32BE(crc(body));
    return Buffer.concat([len, body, sum]);
  };
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr.set([8, 2, 0, 0, 0], 8);
  const raw = Buffer.alloc((width * 3 + 1) * height);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) raw.set([x * 4, y * 4, 160], y * (width * 3 + 1) + 1 + x * 3);
  }
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', ihdr),
    chunk('IDAT', deflateSync(raw)),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

/** no slash: in a file name it would be a folder */
const HOSTILE_FILE = `<script>alert("f")&amp; 'q' \u202Egnp.exe`;
const HOSTILE_ROOM = `<script>alert('room')</script> "quoted" \u202Bמזהה`;

interface World {
  username: string;
  room: ShareRoomReply;
  files: Record<string, Buffer>;
  oldReport: Buffer;
}

/** A user with a laptop (a photo, a report with two versions, a hostile name) and a room sharing Documents/. */
async function world(target: TestTarget): Promise<World> {
  const username = unique('web');
  await createUser(partnerApi(target), { username, password: PASSWORD });
  const storage = storageApi(target, username, PASSWORD);
  await storage.putDevice('laptop').expect(200);
  const oldReport = Buffer.from('report, version one');
  const files: Record<string, Buffer> = {
    'Documents/report.txt': Buffer.from('report, version two (the latest)'),
    'Documents/Photos/sunset.png': png(64, 48),
    [`Documents/${HOSTILE_FILE}`]: Buffer.from('hostile'),
  };
  await storage.putFile('laptop', 'Documents/report.txt', oldReport).expect(201);
  for (const [path, content] of Object.entries(files)) await storage.putFile('laptop', path, content).expect(201);
  const room = await createShareRoom(storage, {
    room_name: HOSTILE_ROOM,
    room_description: 'Line one\nLine <b>two</b>',
    dirs: ['laptop/Documents/'],
  });
  return { username, room, files, oldReport };
}

function modes(): [string, () => Promise<TestTarget>][] {
  const list: [string, () => Promise<TestTarget>][] = [['standalone', () => startStandalone()]];
  if (process.env.NATS_URL) list.push(['multi-process', () => startMultiProcess(process.env.NATS_URL!)]);
  return list;
}

for (const [mode, start] of modes()) {
  describe(`web pages (${mode})`, () => {
    let target: TestTarget;
    let w: World;
    before(async () => {
      target = await start();
      w = await world(target);
    });
    after(async () => {
      await target?.close();
    });
    const agent = () => supertest(target.url);
    const roomPath = () => roomAddress(w.room.url);

    it('keeps JSON for JSON clients and gives browsers the room page, hostile names escaped', async () => {
      const json = await agent().get(roomPath()).expect(200);
      assert.match(json.headers['content-type'], /application\/json/);
      assert.equal(json.body.stats.room_name, HOSTILE_ROOM);
      const star = await agent().get(roomPath()).set('Accept', '*/*').expect(200);
      assert.match(star.headers['content-type'], /application\/json/);
      const page = await agent().get(roomPath()).set('Accept', HTML).expect(200);
      assert.match(page.headers['content-type'], /text\/html/);
      assert.match(page.headers['content-security-policy'], /script-src 'self'/);
      assert.doesNotMatch(page.headers['content-security-policy'], /unsafe-inline/);
      assert.ok(!page.text.includes('<script>alert'), 'a room name reached the page unescaped');
      assert.ok(page.text.includes('&lt;script&gt;alert(&#39;room&#39;)&lt;/script&gt; &quot;quoted&quot; \u202Bמזהה'));
      assert.ok(page.text.includes('Line one\nLine &lt;b&gt;two&lt;/b&gt;'));
      assert.doesNotMatch(page.text, /<script(?! src="\/browse\/static\/)/, 'inline script in a page');
      const folder = await agent().get(`${roomPath()}Documents/`).set('Accept', HTML).expect(200);
      assert.ok(!folder.text.includes('<script>alert("f")'));
      assert.ok(folder.text.includes('&lt;script&gt;alert(&quot;f&quot;)&amp;amp; &#39;q&#39; \u202Egnp.exe'));
      // the href is percent-encoded, so no quote can end the attribute
      assert.ok(
        folder.text.includes(
          `href="${roomPath()}Documents/${encodeURIComponent(HOSTILE_FILE).replace(/'/g, '&#39;')}"`,
        ),
      );
      const zip = await agent().get(`${roomPath()}Documents/?format=zip`).set('Accept', HTML).expect(200);
      assert.match(zip.headers['content-type'], /application\/zip/);
      await agent()
        .get(`/share/${b32('nobody')}/nothing/`)
        .set('Accept', HTML)
        .expect(404)
        .expect('Content-Type', /text\/html/);
    });

    it('keeps the login:/location: text contract for programmatic form posts; a browser form post is redirected with a cookie', async () => {
      const text = await agent()
        .post('/browse/login')
        .type('form')
        .send({ username: w.username, password: PASSWORD })
        .expect(200);
      assert.equal(text.text, `login:/storage/${b32(w.username)}/login`);
      const form = await agent().get('/browse/login').set('Accept', HTML).expect(200);
      assert.equal(form.headers['cache-control'], 'no-store');
      const token = /name="form_token" value="([^"]+)"/.exec(form.text)![1];
      const cookie = String(form.headers['set-cookie']).split(';')[0];
      const refused = await agent()
        .post('/browse/login')
        .set('Accept', HTML)
        .set('Cookie', cookie)
        .type('form')
        .send({ form_token: token, username: w.username, password: 'wrong-password' });
      assert.equal(refused.status, 403);
      assert.match(refused.text, /Login failed/);
      const forged = await agent()
        .post('/browse/login')
        .set('Accept', HTML)
        .type('form')
        .send({ form_token: token, username: w.username, password: PASSWORD });
      assert.equal(forged.status, 403, 'a login post without the form cookie is refused');
      const ok = await agent()
        .post('/browse/login')
        .set('Accept', HTML)
        .set('Cookie', cookie)
        .type('form')
        .send({ form_token: token, username: w.username, password: PASSWORD })
        .expect(303);
      assert.equal(ok.headers.location, `/storage/${b32(w.username)}/`);
      const session = (ok.headers['set-cookie'] as unknown as string[]).find((c) => c.startsWith('burrow_session='))!;
      assert.match(session, /HttpOnly/i);
      assert.match(session, /SameSite=Lax/i);
      // a state-changing form without the CSRF token is refused, and changes nothing
      const before = (await storageApi(target, w.username, PASSWORD).listShares()).body.share_rooms.length;
      const csrfless = await agent()
        .post(`/storage/${b32(w.username)}/shares`)
        .set('Accept', HTML)
        .set('Cookie', session.split(';')[0])
        .type('form')
        .send({ room_name: 'x', dirs: 'laptop/' });
      assert.equal(csrfless.status, 403);
      assert.equal((await storageApi(target, w.username, PASSWORD).listShares()).body.share_rooms.length, before);
      // the storage browser without a session goes to the login page, not a Basic dialog
      const anonymous = await agent()
        .get(`/storage/${b32(w.username)}/`)
        .set('Accept', HTML)
        .expect(303);
      assert.equal(anonymous.headers.location, '/browse/login');
      assert.equal(anonymous.headers['www-authenticate'], undefined);
    });

    it(
      'works in a real browser: room, folder, thumbnails, downloads, login, versions, links, rooms, logout',
      { skip: NO_BROWSER },
      async () => {
        await browserFlow(target, w, mode);
      },
    );

    it(
      'a page of another site cannot write with the Basic credentials the browser cached (text/plain form, no-cors fetch)',
      { skip: NO_BROWSER },
      async () => {
        await crossSiteFlow(target, w);
      },
    );
  });
}

async function browserFlow(target: TestTarget, w: World, mode: string): Promise<void> {
  const { chromium } = await import('playwright-core');
  const require = createRequire(import.meta.url);
  const axeSource = await readFile(require.resolve('axe-core/axe.min.js'), 'utf8');
  await mkdir(OUT, { recursive: true });
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: ['--no-sandbox', '--disable-dev-shm-usage'],
  });
  try {
    const context = await browser.newContext({ acceptDownloads: true, viewport: { width: 1280, height: 800 } });
    const page = await context.newPage();
    const cspErrors: string[] = [];
    page.on('console', (m) => {
      if (/Content Security Policy/i.test(m.text())) cspErrors.push(m.text());
    });
    const checked: string[] = [];
    /** axe-core in the page (evaluated over the protocol: the CSP allows no inline script), then screenshots. */
    const audit = async (name: string, on = page) => {
      await on.evaluate(axeSource);
      const result = await on.evaluate<{ violations: { id: string; impact: string; help: string }[] }>(
        "axe.run(document, { resultTypes: ['violations'] })",
      );
      const serious = result.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
      assert.deepEqual(
        serious.map((v) => `${v.id}: ${v.help}`),
        [],
        `${name}: accessibility violations`,
      );
      await on.screenshot({ path: join(OUT, `${mode}-${name}-desktop.png`), fullPage: true });
      await on.setViewportSize({ width: 375, height: 740 });
      await on.screenshot({ path: join(OUT, `${mode}-${name}-phone.png`), fullPage: true });
      const overflow = await on.evaluate<number>(
        'document.documentElement.scrollWidth - document.documentElement.clientWidth',
      );
      assert.ok(overflow <= 0, `${name}: wider than a phone screen by ${overflow}px`);
      await on.setViewportSize({ width: 1280, height: 800 });
      checked.push(name);
    };
    const download = async (click: () => Promise<unknown>): Promise<Buffer> => {
      const [dl] = await Promise.all([page.waitForEvent('download'), click()]);
      return readFile(await dl.path());
    };

    // the share room, logged out
    await page.goto(w.room.url.startsWith('http') ? w.room.url : target.url + w.room.url);
    assert.equal(await page.locator('h1').textContent(), HOSTILE_ROOM);
    await audit('share-room');
    await page.getByRole('link', { name: 'Documents', exact: true }).click();
    await page.getByRole('link', { name: 'Photos', exact: true }).click();
    // previews are made off the request path: wait for the 48 px one, then reload and see it as the thumbnail
    const previewPath = new URL(`${page.url()}sunset.png`).pathname + '?preview_48';
    const deadline = Date.now() + 30_000;
    let preview = await supertest(target.url).get(previewPath);
    while (preview.status !== 200 && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 200));
      preview = await supertest(target.url).get(previewPath);
    }
    assert.equal(preview.status, 200, 'the 48 px preview of sunset.png was never made');
    assert.match(String(preview.headers['content-type']), /^image\/(png|jpeg)$/);
    await page.reload();
    const thumb = page.locator('.entries li', { hasText: 'sunset.png' }).locator('img.thumb');
    assert.match((await thumb.getAttribute('src')) ?? '', /\?preview_48$/);
    await thumb.evaluate(
      (img) =>
        new Promise((resolve) => {
          const i = img as unknown as { complete: boolean; onload: unknown };
          if (i.complete) resolve(null);
          else i.onload = resolve;
        }),
    );
    assert.ok(
      await thumb.evaluate((img) => {
        const i = img as unknown as { complete: boolean; naturalWidth: number };
        return i.complete && i.naturalWidth > 0;
      }),
      'the thumbnail did not load',
    );
    await audit('share-folder');
    const photo = await download(() => page.getByRole('link', { name: 'sunset.png' }).click());
    assert.deepEqual(photo, w.files['Documents/Photos/sunset.png']);
    const zip = await download(() => page.getByRole('link', { name: 'Download folder as zip' }).click());
    if (await hasUnzip()) {
      const entries = await unzipAll(zip);
      assert.deepEqual(entries.get('Photos/sunset.png'), w.files['Documents/Photos/sunset.png']);
    } else assert.equal(zip.subarray(0, 4).toString('hex'), '504b0304');

    // logging in through the form
    await page.goto(`${target.url}/browse/login`);
    await audit('login');
    await page.getByLabel('Username or email').fill(w.username);
    await page.getByLabel('Password').fill('not-the-password');
    await page.getByRole('button', { name: 'Log in' }).click();
    assert.match((await page.getByRole('alert').textContent()) ?? '', /Login failed/);
    await audit('login-error');
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Log in' }).click();
    await page.waitForURL(`**/storage/${b32(w.username)}/`);
    assert.equal(await page.locator('h1').textContent(), 'My storage');
    assert.match((await page.locator('.entries').textContent()) ?? '', /laptop[\s\S]*last login[\s\S]*last backup/);
    await audit('storage-root');
    await page.getByRole('link', { name: 'laptop', exact: true }).click();
    await page.getByRole('link', { name: 'Documents', exact: true }).click();
    await audit('storage-folder');
    // an old version of the report
    await page
      .locator('.entries li', { hasText: 'report.txt' })
      .getByRole('link', { name: /Versions \(2\)/ })
      .click();
    await audit('versions');
    const old = await download(() => page.getByRole('link', { name: 'Version 1', exact: true }).click());
    assert.deepEqual(old, w.oldReport);
    const latest = await download(() => page.getByRole('link', { name: 'Version 2', exact: true }).click());
    assert.deepEqual(latest, w.files['Documents/report.txt']);
    // share a file: the link page with its copy button (the external script un-hides it)
    await page.goBack();
    await page
      .locator('.entries li', { hasText: 'report.txt' })
      .getByRole('button', { name: 'Share report.txt' })
      .click();
    const link = await page.getByLabel('Link').inputValue();
    assert.match(link, /\/link\/[^/]+\/report\.txt$/);
    assert.equal(await page.getByRole('button', { name: 'Copy link' }).isVisible(), true, 'copy.js did not run');
    await audit('share-link');
    const linked = await supertest(target.url).get(new URL(link).pathname).expect(200);
    assert.equal(linked.text ?? linked.body.toString(), w.files['Documents/report.txt'].toString());
    // create a share room, then open it logged out
    await page.getByRole('link', { name: 'Share rooms' }).click();
    await page.getByLabel('Name').last().fill('Holiday pictures');
    await page.getByLabel('Description').last().fill('From the trip.\nEnjoy!');
    await page
      .getByLabel(/Folders/)
      .last()
      .fill('laptop/Documents/Photos/');
    await page.getByRole('button', { name: 'Create share room' }).click();
    await audit('share-rooms');
    const roomUrl = await page.getByRole('link', { name: 'Holiday pictures' }).getAttribute('href');
    assert.ok(roomUrl);
    const anonymous = await browser.newContext();
    const visitor = await anonymous.newPage();
    await visitor.goto(new URL(roomUrl, target.url).href);
    assert.equal(await visitor.locator('h1').textContent(), 'Holiday pictures');
    assert.match((await visitor.locator('.desc').textContent()) ?? '', /From the trip\.\nEnjoy!/);
    await visitor.getByRole('link', { name: 'Photos', exact: true }).click();
    assert.equal(await visitor.getByRole('link', { name: 'sunset.png' }).count(), 1);

    // the owner protects the room with a password on the share rooms page
    await page.locator('section', { hasText: 'Holiday pictures' }).getByText('Password', { exact: true }).click();
    await page
      .locator('section', { hasText: 'Holiday pictures' })
      .getByLabel(/Room password/)
      .fill('holiday-secret-1');
    await page
      .locator('section', { hasText: 'Holiday pictures' })
      .getByRole('button', { name: 'Set password' })
      .click();
    assert.match(
      (await page.locator('section', { hasText: 'Holiday pictures' }).textContent()) ?? '',
      /protected by a password/,
    );
    // the visitor, in the folder: now a password form, nothing of the room shown
    await visitor.reload();
    assert.equal(await visitor.locator('h1').textContent(), 'This share room is protected');
    assert.doesNotMatch(await visitor.content(), /sunset\.png|Holiday pictures/);
    await audit('room-password', visitor);
    await visitor.getByLabel('Room password').fill('not-it-at-all');
    await visitor.getByRole('button', { name: 'Open the room' }).click();
    assert.match((await visitor.getByRole('alert').textContent()) ?? '', /Wrong password/);
    await visitor.getByLabel('Room password').fill('holiday-secret-1');
    await visitor.getByRole('button', { name: 'Open the room' }).click();
    // back where the visitor was (the folder), and the room's pages and files open with the cookie
    assert.equal(await visitor.getByRole('link', { name: 'sunset.png' }).count(), 1);
    const [photoDownload] = await Promise.all([
      visitor.waitForEvent('download'),
      visitor.getByRole('link', { name: 'sunset.png' }).click(),
    ]);
    assert.deepEqual(await readFile(await photoDownload.path()), w.files['Documents/Photos/sunset.png']);
    // another browser without the cookie is still asked
    const stranger = await (await browser.newContext()).newPage();
    await stranger.goto(visitor.url());
    assert.equal(await stranger.locator('h1').textContent(), 'This share room is protected');
    // the owner removes it: open again
    await page.locator('section', { hasText: 'Holiday pictures' }).getByText('Password', { exact: true }).click();
    await page.getByRole('button', { name: 'Remove the password of Holiday pictures' }).click();
    await stranger.reload();
    assert.equal(await stranger.getByRole('link', { name: 'sunset.png' }).count(), 1);
    await anonymous.close();

    // log out: back and refresh show nothing private
    const privateUrl = `${target.url}/storage/${b32(w.username)}/laptop/Documents/`;
    await page.goto(privateUrl);
    await page.getByRole('button', { name: 'Log out' }).click();
    await page.waitForURL('**/browse/login?logged_out');
    assert.match((await page.getByRole('status').textContent()) ?? '', /logged out/);
    await page.goBack();
    assert.match(page.url(), /\/browse\/login$|\/browse\/login\?/, `back after logout showed ${page.url()}`);
    assert.doesNotMatch(await page.content(), /report\.txt/);
    await page.goto(privateUrl);
    await page.reload();
    assert.match(page.url(), /\/browse\/login/);
    assert.doesNotMatch(await page.content(), /report\.txt/);
    assert.deepEqual(cspErrors, [], 'the Content-Security-Policy blocked something');
    assert.ok(checked.length >= 9);
  } finally {
    await browser.close();
  }
}

/** A page of another site: a second HTTP server on another loopback address, serving `pages` (path -> HTML). */
async function otherSite(pages: Record<string, string>): Promise<{ url: string; server: Server }> {
  const server = createServer((req, res) => {
    const html = pages[req.url ?? ''];
    res.writeHead(html ? 200 : 404, { 'Content-Type': 'text/html; charset=utf-8' });
    res.end(html ?? 'not found');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.2', resolve));
  return { url: `http://127.0.0.2:${(server.address() as { port: number }).port}`, server };
}

/**
 * An auto-submitting `text/plain` form whose body is JSON: the browser sends `<name>=<value>`, so
 * the name holds the JSON up to the opening quote of a last field's value and the value closes it
 * (`{"a":"b","pad":"` + `=` + `"}`).
 */
function textPlainForm(action: string, body: Record<string, unknown>): string {
  const json = JSON.stringify({ ...body, pad: '' });
  const attr = (v: string) => v.replace(/&/g, '&amp;').replace(/'/g, '&#39;');
  return `<!DOCTYPE html><form method="post" enctype="text/plain" action="${action}"><input type="hidden" name='${attr(json.slice(0, -2))}' value='${attr(json.slice(-2))}'></form><script>document.forms[0].submit()</script>`;
}

/** A no-cors `fetch` with the browser's credentials; the title says when it settled. */
function noCorsFetch(url: string, body: Record<string, unknown>): string {
  return `<!DOCTYPE html><title></title><script>fetch(${JSON.stringify(url)}, { method: 'POST', mode: 'no-cors', credentials: 'include', headers: { 'Content-Type': 'text/plain' }, body: ${JSON.stringify(JSON.stringify(body))} }).then(() => { document.title = 'sent'; }, (e) => { document.title = 'failed ' + e; });</script>`;
}

async function crossSiteFlow(target: TestTarget, w: World): Promise<void> {
  const { chromium } = await import('playwright-core');
  const root = `${target.url}/storage/${b32(w.username)}`;
  const evilUser = unique('evil');
  const evil = await otherSite({
    '/user-form': textPlainForm(`${root}/shares`, { room_name: 'evil-form', dirs: ['laptop/'] }),
    '/user-fetch': noCorsFetch(`${root}/shares`, { room_name: 'evil-fetch', dirs: ['laptop/'] }),
    '/partner-form': textPlainForm(`${target.url}/users/`, {
      username: evilUser,
      name: 'Evil',
      email: `${evilUser}@example.com`,
      password: 'attacker-password-1',
    }),
    '/partner-fetch': noCorsFetch(`${target.url}/apis/accounts/v1/users/`, {
      username: `${evilUser}f`,
      name: 'Evil',
      email: `${evilUser}f@example.com`,
      password: 'attacker-password-1',
    }),
  });
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: ['--no-sandbox', '--disable-dev-shm-usage'],
  });
  try {
    /** Burrow's answers to writes the browser sent, whatever page sent them. */
    const writes: string[] = [];
    const attack = async (credentials: { username: string; password: string }, prime: string, pages: string[]) => {
      // the victim answered one Basic prompt of Burrow's (the browser keeps the credentials for the realm)
      const context = await browser.newContext({ acceptDownloads: true, httpCredentials: credentials });
      const page = await context.newPage();
      page.on('response', (res) => {
        if (res.url().startsWith(target.url) && res.request().method() === 'POST')
          writes.push(`${res.status()} ${res.url()}`);
      });
      const primed = await page.goto(prime).catch(() => null);
      if (primed) assert.equal(primed.status(), 200, `the Basic prompt of ${prime} was answered`);
      for (const path of pages) {
        if (path.endsWith('-form')) {
          await page.goto(`${evil.url}${path}`);
          await page.waitForURL((url) => url.href.startsWith(target.url));
          assert.match(await page.content(), /another (site|origin)/, `${path}: Burrow's refusal`);
        } else {
          await page.goto(`${evil.url}${path}`);
          await page.waitForFunction('document.title !== ""');
          assert.equal(await page.title(), 'sent');
        }
      }
      await context.close();
    };
    // a user's credentials, cached from a file download, and a partner's, from an interface A URL
    const file = `${root}/laptop/Documents/report.txt`;
    await attack({ username: w.username, password: PASSWORD }, file, ['/user-form', '/user-fetch']);
    await attack(target.partner, `${target.url}/ping`, ['/partner-form', '/partner-fetch']);
    assert.equal(writes.length, 4, writes.join('\n'));
    for (const write of writes) assert.match(write, /^403 /);
    const rooms = (await storageApi(target, w.username, PASSWORD).listShares().expect(200)).body as {
      share_rooms: { room_name: string }[];
    };
    assert.deepEqual(
      rooms.share_rooms.filter((r) => r.room_name.startsWith('evil')),
      [],
      'no room was created',
    );
    await partnerApi(target).get(`/users/${evilUser}`).expect(404);
    await partnerApi(target).get(`/users/${evilUser}f`).expect(404);
  } finally {
    await browser.close();
    evil.server.close();
  }
}
