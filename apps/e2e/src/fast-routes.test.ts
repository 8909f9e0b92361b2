/**
 * The gateway's fast routes answer exactly as Express and Nest do (docs/decisions.md, "Fast
 * routes"): separate processes on NATS, the two gateways of the target (fast routes on, the
 * default) and a third one with `BURROW_FAST_ROUTES=off`, all on the same services and data. The
 * same requests go to a fast gateway and to the Express one: every status, header (but `Date`)
 * and body byte must be the same, and so must each gateway's request metrics for them. The
 * requests cover what the storage reads answer: bytes (GET, HEAD, empty files), ranges (206,
 * 416, several ranges, an inverted one, If-Range), conditional requests (304), versions, version
 * lists, listings, the root, zips, session extensions (valid, for a folder, altered), Basic and
 * cookie logins, refusals (401 with its challenge, 404 for another user, a bad path, NUL, an
 * unknown transfer coding), pages (a browser's Accept), the routes beside it on the same prefix,
 * and the path's case; single-file share links (valid, an older version, altered, ranges); and
 * what interface A's user record and page of users answer (see that test).
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import supertest from 'supertest';
import { createPartner, partnerApi } from './harness/client.js';
import { freePort, type MultiProcessTarget, startMultiProcess } from './harness/multi-process.js';
import { basicAuth, rawRequest } from './harness/raw-http.js';
import { storageApi } from './harness/storage-client.js';
import { createUser, eventually, unique } from './scenarios/accounts-fixtures.js';

const natsUrl = process.env.NATS_URL;
const PASSWORD = 'fast-routes-password-1';

describe(
  'fast routes answer as Express does',
  { skip: natsUrl ? false : 'NATS_URL not set: multi-process suites skipped' },
  () => {
    let target: MultiProcessTarget;
    let fastUrl: string;
    let expressUrl: string;

    before(async () => {
      target = await startMultiProcess(natsUrl!);
      fastUrl = target.urls[0];
      const port = await freePort();
      target.startApp('gateway', { PORT: String(port), BURROW_FAST_ROUTES: 'off' });
      expressUrl = `http://127.0.0.1:${port}`;
      await eventually(async () => assert.equal((await fetch(`${expressUrl}/readyz`)).status, 200), 90_000, 200);
    });
    after(async () => {
      await target?.close();
    });

    it('the same requests get the same answers, byte for byte', async () => {
      // set-up through the target's second gateway: the two compared see only the compared requests
      const setup = { ...target, url: target.urls[1] };
      const username = unique('fast');
      const other = unique('fastother');
      await createUser(partnerApi(setup), { username, password: PASSWORD });
      await createUser(partnerApi(setup), { username: other, password: PASSWORD });
      const storage = storageApi(setup, username, PASSWORD);
      await storage.putDevice('laptop').expect(200);
      await storageApi(setup, other, PASSWORD).putDevice('laptop').expect(200);
      await storage.putFile('laptop', 'docs/report.txt', 'first version\n').expect(201);
      await storage.putFile('laptop', 'docs/report.txt', 'hello, the second version\n').expect(201);
      await storage.putFile('laptop', 'docs/été à.bin', randomBytes(70_000)).expect(201);
      await storage.putFile('laptop', 'empty.bin', Buffer.alloc(0)).expect(201);
      const root = storage.root;
      const file = `${root}/laptop/docs/report.txt`;
      const named = `${root}/laptop/docs/${encodeURIComponent('été à.bin')}`;
      const basic = basicAuth(username, PASSWORD).Authorization;
      const agent = supertest(setup.url);
      const login = await agent.post(`${root}/login`).type('form').send({ password: PASSWORD }).expect(200);
      const cookie = [login.headers['set-cookie']].flat()[0].split(';')[0];
      const extension = (
        await agent.get(`${file}?format=session_extension&ip=127.0.0.1`).set('Authorization', basic).expect(200)
      ).text;
      const elsewhere = (
        await agent.get(`${file}?format=session_extension&ip=192.0.2.7`).set('Authorization', basic).expect(200)
      ).text;
      const etag = (await agent.get(file).set('Authorization', basic).expect(200)).headers.etag;
      const link = (await agent.post(file).set('Authorization', basic).expect(200)).text;
      const oldLink = (await agent.post(`${file}?version=1`).set('Authorization', basic).expect(200)).text;
      const lastModified = (await agent.get(file).set('Authorization', basic).expect(200)).headers['last-modified'];

      const asBasic = { Authorization: basic };
      const asCookie = { Cookie: cookie };
      const browser = { ...asCookie, Accept: 'text/html,application/xhtml+xml,*/*;q=0.8' };
      const requests: Exchange[] = [
        { path: file, headers: asBasic },
        { method: 'HEAD', path: file, headers: asBasic },
        { path: file, headers: asCookie },
        { method: 'HEAD', path: file, headers: asCookie },
        { path: named, headers: asCookie },
        { path: `${root}/laptop/empty.bin`, headers: asCookie },
        { method: 'HEAD', path: `${root}/laptop/empty.bin`, headers: asCookie },
        { path: file, headers: { ...asCookie, Range: 'bytes=0-4' } },
        { method: 'HEAD', path: file, headers: { ...asCookie, Range: 'bytes=2-' } },
        { path: named, headers: { ...asCookie, Range: 'bytes=-100' } },
        { path: file, headers: { ...asCookie, Range: 'bytes=1000-' } },
        { path: file, headers: { ...asCookie, Range: 'bytes=0-1,4-5' } },
        { path: file, headers: { ...asCookie, Range: 'bytes=5-2' } },
        { path: file, headers: { ...asCookie, Range: 'bytes=0-4', 'If-Range': '"other"' } },
        { path: file, headers: { ...asCookie, Range: 'bytes=0-4', 'If-Range': etag } },
        { path: file, headers: { ...asCookie, 'If-None-Match': etag } },
        { path: file, headers: { ...asCookie, 'If-None-Match': `W/${etag}, "x"` } },
        { path: file, headers: { ...asCookie, 'If-Modified-Since': lastModified } },
        { path: `${file}?version=1`, headers: asCookie },
        { path: `${file}?version=1cb=17`, headers: asCookie },
        { path: `${file}?version=99`, headers: asCookie },
        { path: `${file}?format=version_info`, headers: asCookie },
        { path: `${file}?preview_48`, headers: asCookie },
        { path: `${file}?preview_13`, headers: asCookie },
        { path: `${root}/laptop/docs/missing.txt`, headers: asCookie },
        { path: `${root}/nodevice/x.txt`, headers: asCookie },
        { path: `${root}/laptop`, headers: asCookie },
        { path: `${root}/laptop/docs/`, headers: asCookie },
        { path: `${root}/laptop/`, headers: asBasic },
        { path: `${root}/`, headers: asCookie },
        { path: `${root}/?device_info=yes`, headers: asCookie },
        { path: `${root}/laptop/docs/?format=zip`, headers: asCookie },
        { path: file },
        { method: 'HEAD', path: file },
        { path: file, headers: basicAuth(username, 'not-the-password') },
        { path: file, headers: { Cookie: `${cookie}x` } },
        { path: file.replace(root, `/storage/${'MZXW6'}`), headers: asCookie },
        { path: `/storage/${root.split('/')[2]}x/laptop/docs/report.txt`, headers: asCookie },
        { path: `${root}/laptop/docs%2Freport.txt`, headers: asCookie },
        { path: `${root}/laptop/docs/%E0%A4%A`, headers: asCookie },
        { path: `${root}/laptop/../laptop/docs/report.txt`, headers: asCookie },
        { path: `${root}/laptop/docs/report%00.txt`, headers: asCookie },
        { path: file, headers: { ...asCookie, 'Transfer-Encoding': 'gzip, chunked' } },
        { path: `${file}?se=${encodeURIComponent(extension)}` },
        { method: 'HEAD', path: `${file}?se=${encodeURIComponent(extension)}` },
        { path: `${file}?se=${encodeURIComponent(extension)}`, headers: { Range: 'bytes=0-3' } },
        { path: `${file}?se=${encodeURIComponent(extension)}`, headers: { Accept: 'text/html' } },
        { path: `${file}?se=${encodeURIComponent(extension)}x` },
        { path: `${file}?se=${encodeURIComponent(elsewhere)}` },
        { path: `${root}/laptop/docs/?se=${encodeURIComponent(extension)}` },
        { path: `${file}?se=${encodeURIComponent(extension)}&format=session_extension&ip=127.0.0.1` },
        { path: file, headers: browser },
        { path: `${file}?format=version_info`, headers: browser },
        { path: `${root}/laptop/docs/`, headers: browser },
        { path: `${root}/laptop/docs/`, headers: { Accept: 'text/html' } },
        { path: `${root}/shares`, headers: asCookie },
        { method: 'HEAD', path: `${root}/shares`, headers: asCookie },
        { path: `${root}/login`, headers: asCookie },
        { path: file.replace('/storage/', '/STORAGE/'), headers: asCookie },
        { path: file.replace('/storage/', '/Storage/'), headers: asBasic },
        { path: `${file}?format=session_extension&ip=not-an-ip`, headers: asCookie },
        { path: link },
        { method: 'HEAD', path: link },
        { path: oldLink },
        { path: link, headers: { Range: 'bytes=3-' } },
        { path: link, headers: { 'If-None-Match': etag } },
        { path: link, headers: { Accept: 'text/html' } },
        { path: link.replace(/\/[^/]*$/, '/another-name.txt') },
        { path: link.replace('/link/', '/LINK/') },
        { path: link.replace(/^\/link\/([^/]+)\//, '/link/$1x/') },
        { path: link.replace(/\/[^/]*$/, '') },
        { path: link.replace(/\/[^/]*$/, '/') },
      ];

      await assertSameAnswers(fastUrl, expressUrl, requests);

      // each gateway counted the same requests under the same routes and statuses
      await assertSameCounts(fastUrl, expressUrl, /route="(\/storage|unmatched)/, 'route="/storage/*path"');
      // the comparison means something only if the fast gateway took them on its fast routes
      await assertFastServed(fastUrl, expressUrl, ['/storage/*path', '/link/:token/*name']);
    });

    it("interface A's user record and page of users get the same answers, byte for byte", async () => {
      // set-up through the target's second gateway, as above; a partner of its own, whose users
      // nothing else changes (the storage test's users' records still move with its uploads)
      const setup = { ...target, url: target.urls[1] };
      const mine = await createPartner(setup);
      const api = mine.api;
      const username = unique('fastuser');
      const email = `${username}@example.com`;
      await createUser(api, { username, email, name: 'Zoë "Fast" \\ Route' });
      await createUser(api, { username: unique('fastuser') });
      const other = await createPartner(setup);
      const theirs = unique('theirs');
      await createUser(other.api, { username: theirs });
      const { username: partner, password } = mine.credentials;
      const asPartner = basicAuth(partner, password);
      const wrong = basicAuth(partner, 'not-the-password');

      const requests: Exchange[] = [
        { path: `/users/${username}`, headers: asPartner },
        { method: 'HEAD', path: `/users/${username}`, headers: asPartner },
        { path: `/users/${username}/`, headers: asPartner },
        { path: `/users/${username.toUpperCase()}`, headers: asPartner },
        { path: `/users/${encodeURIComponent(email)}`, headers: asPartner },
        { path: `/users/${username.replace(/^f/, '%66')}`, headers: asPartner },
        { path: `/Users/${username}`, headers: asPartner },
        { path: `/apis/accounts/v1/users/${username}`, headers: asPartner },
        { path: `/users/nobody${username}`, headers: asPartner },
        { path: `/users/${theirs}`, headers: asPartner },
        { path: `/users/${theirs}`, headers: basicAuth(other.credentials.username, other.credentials.password) },
        { path: '/users/%E0%A4%A', headers: asPartner },
        { path: `/users/${username}` },
        { path: `/users/${username}`, headers: { Authorization: 'Basic !!!' } },
        { path: `/users/${username}`, headers: { Authorization: `Bearer ${password}` } },
        { path: `/users/${username}`, headers: wrong },
        { path: `/users/${username}`, headers: basicAuth(`nobody${username}`, password) },
        { path: `/users/${username}/devices`, headers: asPartner },
        { path: '/users/', headers: asPartner },
        { method: 'HEAD', path: '/users/', headers: asPartner },
        { path: '/users', headers: asPartner },
        { path: '/users/?limit=1', headers: asPartner },
        { path: '/users/?limit=2&offset=1&order_by=-username', headers: asPartner },
        { path: `/users/?search=${encodeURIComponent('"fast"')}`, headers: asPartner },
        { path: '/users/?action=user_count', headers: asPartner },
        { path: '/users/?limit=0', headers: asPartner },
        { path: '/users/?limit=abc&order_by=nothing', headers: asPartner },
        { path: '/users/?limit=abc', headers: wrong },
        { path: '/users/?limit=abc' },
        { path: '/apis/accounts/v1/users/?limit=1', headers: asPartner },
        { path: '/users/?limit=1', headers: basicAuth(other.credentials.username, other.credentials.password) },
      ];
      await assertSameAnswers(fastUrl, expressUrl, requests);

      // the throttle: the other partner's account locked by failures (through the set-up gateway), then
      // its right password refused alike by both gateways compared (429; Retry-After counts down, so within a second)
      const locked = {
        path: '/users/?limit=1',
        headers: basicAuth(other.credentials.username, other.credentials.password),
      };
      let status: number | undefined;
      for (let i = 0; i < 40 && status !== 429; i++) {
        status = (
          await rawRequest(`${setup.url}/users/${theirs}`, {
            headers: basicAuth(other.credentials.username, `wrong-${i}`),
          })
        ).status;
      }
      assert.equal(status, 429);
      for (const request of [locked, { ...locked, path: `/users/${theirs}` }]) {
        const fast = await answer(fastUrl, request);
        const express = await answer(expressUrl, request);
        assert.equal(fast.status, 429);
        assert.ok(
          Math.abs(Number(fast.headers['retry-after']) - Number(express.headers['retry-after'])) <= 1,
          `${fast.headers['retry-after']} ${express.headers['retry-after']}`,
        );
        // the two answers may fall either side of a second: the wait they give may differ by one
        const text = (a: typeof fast) => Buffer.from(a.body, 'base64').toString(); // answer() gives the body in base64
        const retryAfter = (a: typeof fast) => (JSON.parse(text(a)) as { retry_after: number }).retry_after;
        assert.ok(Math.abs(retryAfter(fast) - retryAfter(express)) <= 1, `${retryAfter(fast)} ${retryAfter(express)}`);
        const blank = (a: typeof fast) => ({
          ...a,
          body: text(a).replace(/"retry_after":\d+/, '"retry_after":0'),
          headers: { ...a.headers, 'retry-after': '' },
        });
        assert.deepEqual(blank(fast), blank(express), request.path);
      }

      await assertSameCounts(fastUrl, expressUrl, /route="(\/apis\/accounts\/v1)?\/users/, 'route="/users/:user"');
      await assertFastServed(fastUrl, expressUrl, [
        '/users/:user',
        '/users',
        '/apis/accounts/v1/users/:user',
        '/apis/accounts/v1/users',
      ]);
    });
  },
);

interface Exchange {
  method?: string;
  path: string;
  headers?: Record<string, string>;
}

/** A gateway's answer to a request: its status, every header but `Date`, its body's bytes. */
async function answer(base: string, request: Exchange) {
  const res = await rawRequest(`${base}${request.path}`, { method: request.method ?? 'GET', headers: request.headers });
  const { date: _date, ...headers } = res.headers;
  return { status: res.status, headers, body: res.body.toString('base64') };
}

/** Each request answered alike by the fast gateway and the Express one, in turn. */
async function assertSameAnswers(fastUrl: string, expressUrl: string, requests: Exchange[]): Promise<void> {
  for (const request of requests) {
    const fast = await answer(fastUrl, request);
    const express = await answer(expressUrl, request);
    assert.deepEqual(
      fast,
      express,
      `${request.method ?? 'GET'} ${request.path} ${JSON.stringify(request.headers ?? {})}`,
    );
  }
}

/** Both gateways counted the same requests (the metrics lines whose route matches) under the same routes and statuses. */
async function assertSameCounts(fastUrl: string, expressUrl: string, routes: RegExp, expected: string): Promise<void> {
  const counted = async (base: string) =>
    (await (await fetch(`${base}/metrics`)).text())
      .split('\n')
      .filter((line) => line.startsWith('burrow_http_requests_total{') && routes.test(line))
      .sort();
  const fastCounts = await counted(fastUrl);
  assert.ok(
    fastCounts.some((line) => line.includes(expected)),
    fastCounts.join('\n'),
  );
  assert.deepEqual(fastCounts, await counted(expressUrl));
}

/**
 * The fast gateway answered requests of each of `routes` on its fast route
 * (`burrow_http_fast_route_requests_total`), and the one with fast routes off answered none there.
 */
async function assertFastServed(fastUrl: string, expressUrl: string, routes: string[]): Promise<void> {
  const served = async (base: string) => {
    const counts = new Map<string, number>();
    for (const line of (await (await fetch(`${base}/metrics`)).text()).split('\n')) {
      const match = /^burrow_http_fast_route_requests_total\{route="([^"]*)"\} (\d+)/.exec(line);
      if (match) counts.set(match[1], Number(match[2]));
    }
    return counts;
  };
  const fast = await served(fastUrl);
  for (const route of routes)
    assert.ok((fast.get(route) ?? 0) > 0, `no request on the fast route ${route}: ${JSON.stringify([...fast])}`);
  assert.deepEqual([...(await served(expressUrl))], [], 'fast routes off: none taken');
}
