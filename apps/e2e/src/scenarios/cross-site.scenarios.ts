/**
 * Cross-site writes with the session cookie (issue 18, item 4): a state-changing request that
 * carries the cookie and comes from another origin (`Origin`, `Sec-Fetch-Site`) is refused with a
 * 403 JSON reason, on the storage JSON API and the web pages' forms alike; the same request from
 * Burrow's own origin, with HTTP Basic, or without a browser's headers still works.
 */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import supertest from 'supertest';
import { b32 } from '../harness/storage-client.js';
import type { ScenarioContext } from './scenarios.js';
import { userWithDevice } from './storage-fixtures.js';

const PASSWORD = 'user-password-1';
const EVIL = 'https://evil.example';

export function crossSiteScenarios({ target }: ScenarioContext) {
  async function loggedIn() {
    const { username, storage } = await userWithDevice(target(), 'xs', PASSWORD);
    assert.equal((await storage.putFile('laptop', 'docs/a.txt', 'hello')).status, 201);
    const root = `/storage/${b32(username)}`;
    const login = await supertest(target().url).post(`${root}/login`).type('form').send({ username, password: PASSWORD }).expect(200);
    const cookie = (login.headers['set-cookie'] as unknown as string[])[0].split(';')[0];
    return { username, storage, root, cookie, own: new URL(target().url).origin };
  }
  const room = (name: string) => JSON.stringify({ room_name: name, dirs: ['laptop/docs/'] });

  it('a JSON POST .../shares with the cookie from another origin is refused with 403 and creates nothing', async () => {
    const u = await loggedIn();
    const agent = supertest(target().url);
    const evil = await agent.post(`${u.root}/shares`).set('Cookie', u.cookie).set('Origin', EVIL).set('Content-Type', 'application/json').send(room('evil'));
    assert.equal(evil.status, 403, evil.text);
    assert.match(evil.body.reason, /another origin/);
    const fetchMeta = await agent.post(`${u.root}/shares`).set('Cookie', u.cookie).set('Sec-Fetch-Site', 'cross-site').set('Content-Type', 'application/json').send(room('evil'));
    assert.equal(fetchMeta.status, 403, fetchMeta.text);
    assert.match(fetchMeta.body.reason, /another site/);
    const nullOrigin = await agent.post(`${u.root}/shares`).set('Cookie', u.cookie).set('Origin', 'null').set('Content-Type', 'application/json').send(room('evil'));
    assert.equal(nullOrigin.status, 403, nullOrigin.text);
    const rooms = await u.storage.listShares().expect(200);
    assert.equal(JSON.stringify(rooms.body).includes('evil'), false, 'no room was created');
  });

  it('deleting a file or posting a web form with the cookie from another origin is refused; reads are not', async () => {
    const u = await loggedIn();
    const agent = supertest(target().url);
    const del = await agent.delete(`${u.root}/laptop/docs/a.txt`).set('Cookie', u.cookie).set('Origin', EVIL);
    assert.equal(del.status, 403, del.text);
    const form = await agent.post(`${u.root}/shares`).set('Cookie', u.cookie).set('Origin', EVIL).set('Accept', 'text/html').type('form').send({ room_name: 'x', dirs: 'laptop/docs/' });
    assert.equal(form.status, 403, form.text);
    assert.match(form.headers['content-type'] as string, /json/);
    assert.equal(typeof form.body.reason, 'string');
    // reading stays possible (a cross-site GET is a navigation or an image; SameSite decides)
    await agent.get(`${u.root}/laptop/docs/a.txt`).set('Cookie', u.cookie).set('Origin', EVIL).expect(200);
  });

  it('the same writes from Burrow’s own origin, with HTTP Basic, or without browser headers still work', async () => {
    const u = await loggedIn();
    const agent = supertest(target().url);
    const same = await agent.post(`${u.root}/shares`).set('Cookie', u.cookie).set('Origin', u.own).set('Sec-Fetch-Site', 'same-origin').set('Content-Type', 'application/json').send(room('same'));
    assert.equal(same.status, 201, same.text);
    const bare = await agent.post(`${u.root}/shares`).set('Cookie', u.cookie).set('Content-Type', 'application/json').send(room('bare'));
    assert.equal(bare.status, 201, bare.text);
    const basic = await agent.post(`${u.root}/shares`).auth(u.username, PASSWORD).set('Cookie', u.cookie).set('Origin', EVIL).set('Content-Type', 'application/json').send(room('basic'));
    assert.equal(basic.status, 201, basic.text);
    // a Basic client that sends an Origin (a browser extension, a web app of the partner's) without the cookie
    const basicOnly = await agent.post(`${u.root}/shares`).auth(u.username, PASSWORD).set('Origin', EVIL).set('Content-Type', 'application/json').send(room('basic-only'));
    assert.equal(basicOnly.status, 201, basicOnly.text);
    await agent.delete(`${u.root}/laptop/docs/a.txt`).set('Cookie', u.cookie).set('Origin', u.own).expect((res) => assert.ok(res.status < 300, `${res.status} ${res.text}`));
  });

  it('behind a proxy the forwarded origin counts only from a trusted proxy', async () => {
    const u = await loggedIn();
    const agent = supertest(target().url);
    // the test targets trust no proxy: a forged X-Forwarded-Host does not make evil.example our origin
    const forged = await agent
      .post(`${u.root}/shares`)
      .set('Cookie', u.cookie)
      .set('Origin', EVIL)
      .set('X-Forwarded-Host', 'evil.example')
      .set('X-Forwarded-Proto', 'https')
      .set('Content-Type', 'application/json')
      .send(room('forged'));
    assert.equal(forged.status, 403, forged.text);
  });
}
