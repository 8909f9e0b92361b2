import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import express from 'express';
import supertest from 'supertest';
import { refuseCrossSiteWrites } from './cross-site.js';

function app(publicUrl?: string, trustProxy?: string) {
  const server = express();
  if (trustProxy) server.set('trust proxy', trustProxy);
  server.use(refuseCrossSiteWrites(publicUrl));
  server.all('/{*any}', (_req, res) => {
    res.json({ ok: true });
  });
  return supertest(server);
}
const COOKIE = 'burrow_session=abc.def.ghi';
/** Any method supertest knows (Node's list, WebDAV's included). */
const request = (a: ReturnType<typeof app>, method: string) =>
  (a as unknown as Record<string, (path: string) => supertest.Test>)[method.toLowerCase()]('/x');

describe('refuseCrossSiteWrites', () => {
  it('refuses a write from another origin or site whatever it carries (cookie, Basic, nothing), and nothing else', async () => {
    const a = app();
    const BASIC = 'Basic ' + Buffer.from('alice:secret-password').toString('base64');
    assert.equal((await a.post('/x').set('Cookie', COOKIE).set('Origin', 'https://evil.example')).status, 403);
    assert.equal((await a.put('/x').set('Cookie', COOKIE).set('Sec-Fetch-Site', 'same-site')).status, 403);
    assert.equal((await a.patch('/x').set('Cookie', COOKIE).set('Origin', 'null')).status, 403);
    assert.equal(
      (await a.post('/x').set('Authorization', BASIC).set('Origin', 'https://evil.example')).status,
      403,
      'cached Basic credentials',
    );
    assert.equal(
      (await a.post('/x').set('Authorization', BASIC).set('Cookie', COOKIE).set('Sec-Fetch-Site', 'cross-site')).status,
      403,
      'Basic and the cookie',
    );
    assert.equal(
      (await a.post('/x').set('Origin', 'https://evil.example')).status,
      403,
      'no credentials: a login form (login CSRF)',
    );
    assert.equal((await a.post('/x').set('Sec-Fetch-Site', 'cross-site')).status, 403);
    for (const method of ['DELETE', 'MKCOL', 'PROPPATCH', 'MOVE', 'COPY', 'LOCK', 'UNLOCK']) {
      const res = await request(a, method).set('Authorization', BASIC).set('Origin', 'https://evil.example');
      assert.equal(res.status, 403, method);
    }
    assert.equal((await a.get('/x').set('Cookie', COOKIE).set('Origin', 'https://evil.example')).status, 200, 'a read');
    assert.equal(
      (await a.options('/x').set('Origin', 'https://evil.example').set('Sec-Fetch-Site', 'cross-site')).status,
      200,
      'a preflight',
    );
    const propfind = await request(a, 'PROPFIND').set('Authorization', BASIC).set('Origin', 'https://evil.example');
    assert.equal(propfind.status, 200, 'WebDAV PROPFIND reads');
    assert.equal(
      (await a.post('/x').set('Cookie', COOKIE).set('Sec-Fetch-Site', 'none')).status,
      200,
      'typed by the user',
    );
    assert.equal(
      (await a.post('/x').set('Cookie', COOKIE).set('Origin', 'null').set('Sec-Fetch-Site', 'same-origin')).status,
      200,
      'a no-referrer page of ours',
    );
    assert.equal(
      (await a.post('/x').set('Cookie', COOKIE).set('Origin', 'null').set('Sec-Fetch-Site', 'cross-site')).status,
      403,
    );
    assert.equal(
      (
        await a
          .post('/x')
          .set('Authorization', BASIC)
          .set('Content-Type', 'application/x-www-form-urlencoded')
          .send('{"name":"x"}')
      ).status,
      200,
      'a client without browser headers',
    );
  });

  it('accepts the request’s own origin (default port or not) and BURROW_PUBLIC_URL’s', async () => {
    const a = app('https://files.example.com/burrow');
    const own = await a
      .post('/x')
      .set('Cookie', COOKIE)
      .set('Host', 'localhost:8080')
      .set('Origin', 'http://LOCALHOST:8080');
    assert.equal(own.status, 200, own.text);
    assert.equal(
      (
        await a
          .post('/x')
          .set('Cookie', COOKIE)
          .set('Host', 'localhost:8080')
          .set('Origin', 'https://files.example.com')
      ).status,
      200,
    );
    assert.equal(
      (
        await a
          .post('/x')
          .set('Cookie', COOKIE)
          .set('Host', 'localhost:8080')
          .set('Origin', 'https://files.example.com:443')
      ).status,
      200,
    );
    assert.equal(
      (await a.post('/x').set('Cookie', COOKIE).set('Host', 'localhost:8080').set('Origin', 'http://files.example.com'))
        .status,
      403,
      'another scheme is another origin',
    );
  });

  it('believes X-Forwarded-Host / -Proto only from a trusted proxy', async () => {
    const send = (a: ReturnType<typeof app>) =>
      a
        .post('/x')
        .set('Cookie', COOKIE)
        .set('Host', 'gateway:8080')
        .set('X-Forwarded-Host', 'burrow.example')
        .set('X-Forwarded-Proto', 'https')
        .set('Origin', 'https://burrow.example');
    assert.equal((await send(app(undefined, 'loopback'))).status, 200);
    assert.equal((await send(app())).status, 403);
  });
});
