/**
 * Cross-site writes (issue 18, item 4; issue 33, item 2): a state-changing request that comes from
 * another origin (`Origin`, `Sec-Fetch-Site`) is refused with a 403 JSON reason whatever it carries
 * (the session cookie, Basic credentials a browser cached, a set-password link, nothing: a login
 * form), on every surface: interface A at both mounts, the billing API, webhooks, the storage
 * interface, share rooms, WebDAV, the logins and the set-password page. The same request from
 * Burrow's own origin, or without a browser's headers (netkes, backup clients, rclone, curl),
 * still works; reads and WebDAV's PROPFIND are not affected.
 */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import supertest from 'supertest';
import { createPartner } from '../harness/client.js';
import { davClient, type DavMethod } from '../harness/dav-client.js';
import { b32 } from '../harness/storage-client.js';
import { createUser, unique } from './accounts-fixtures.js';
import { latestMailTo, setPasswordLink } from './appliance-users.scenarios.js';
import type { ScenarioContext } from './scenarios.js';
import { userWithDevice } from './storage-fixtures.js';
import { roomAddress } from './share-fixtures.js';

const PASSWORD = 'user-password-1';
const EVIL = 'https://evil.example';
/** What a browser adds to a request another site's page sends (a form post or a no-cors fetch). */
const FROM_EVIL = { Origin: EVIL, 'Sec-Fetch-Site': 'cross-site' };
/** A JSON body as another site's `text/plain` form posts it (`<input name='{"a":"b","x":"' value='"}'>`). */
const TEXT_PLAIN = 'text/plain';

export function crossSiteScenarios({ target }: ScenarioContext) {
  async function loggedIn() {
    const { username, storage } = await userWithDevice(target(), 'xs', PASSWORD);
    assert.equal((await storage.putFile('laptop', 'docs/a.txt', 'hello')).status, 201);
    const root = `/storage/${b32(username)}`;
    const login = await supertest(target().url)
      .post(`${root}/login`)
      .type('form')
      .send({ username, password: PASSWORD })
      .expect(200);
    const cookie = (login.headers['set-cookie'] as unknown as string[])[0].split(';')[0];
    return { username, storage, root, cookie, own: new URL(target().url).origin };
  }
  const room = (name: string) => JSON.stringify({ room_name: name, dirs: ['laptop/docs/'] });

  it('a JSON POST .../shares with the cookie from another origin is refused with 403 and creates nothing', async () => {
    const u = await loggedIn();
    const agent = supertest(target().url);
    const evil = await agent
      .post(`${u.root}/shares`)
      .set('Cookie', u.cookie)
      .set('Origin', EVIL)
      .set('Content-Type', 'application/json')
      .send(room('evil'));
    assert.equal(evil.status, 403, evil.text);
    assert.match(evil.body.reason, /another origin/);
    const fetchMeta = await agent
      .post(`${u.root}/shares`)
      .set('Cookie', u.cookie)
      .set('Sec-Fetch-Site', 'cross-site')
      .set('Content-Type', 'application/json')
      .send(room('evil'));
    assert.equal(fetchMeta.status, 403, fetchMeta.text);
    assert.match(fetchMeta.body.reason, /another site/);
    const nullOrigin = await agent
      .post(`${u.root}/shares`)
      .set('Cookie', u.cookie)
      .set('Origin', 'null')
      .set('Content-Type', 'application/json')
      .send(room('evil'));
    assert.equal(nullOrigin.status, 403, nullOrigin.text);
    const rooms = await u.storage.listShares().expect(200);
    assert.equal(JSON.stringify(rooms.body).includes('evil'), false, 'no room was created');
  });

  it('deleting a file or posting a web form with the cookie from another origin is refused; reads are not', async () => {
    const u = await loggedIn();
    const agent = supertest(target().url);
    const del = await agent.delete(`${u.root}/laptop/docs/a.txt`).set('Cookie', u.cookie).set('Origin', EVIL);
    assert.equal(del.status, 403, del.text);
    const form = await agent
      .post(`${u.root}/shares`)
      .set('Cookie', u.cookie)
      .set('Origin', EVIL)
      .set('Accept', 'text/html')
      .type('form')
      .send({ room_name: 'x', dirs: 'laptop/docs/' });
    assert.equal(form.status, 403, form.text);
    assert.match(form.headers['content-type'], /json/);
    assert.equal(typeof form.body.reason, 'string');
    // reading stays possible (a cross-site GET is a navigation or an image; SameSite decides)
    await agent.get(`${u.root}/laptop/docs/a.txt`).set('Cookie', u.cookie).set('Origin', EVIL).expect(200);
  });

  it('the same writes from Burrow’s own origin or without browser headers still work; with Basic from another origin they do not', async () => {
    const u = await loggedIn();
    const agent = supertest(target().url);
    const same = await agent
      .post(`${u.root}/shares`)
      .set('Cookie', u.cookie)
      .set('Origin', u.own)
      .set('Sec-Fetch-Site', 'same-origin')
      .set('Content-Type', 'application/json')
      .send(room('same'));
    assert.equal(same.status, 201, same.text);
    const bare = await agent
      .post(`${u.root}/shares`)
      .set('Cookie', u.cookie)
      .set('Content-Type', 'application/json')
      .send(room('bare'));
    assert.equal(bare.status, 201, bare.text);
    const basicNoHeaders = await agent
      .post(`${u.root}/shares`)
      .auth(u.username, PASSWORD)
      .set('Content-Type', 'application/json')
      .send(room('basic'));
    assert.equal(basicNoHeaders.status, 201, basicNoHeaders.text);
    // Basic credentials a browser cached are sent by another site's page just like the cookie
    const basic = await agent
      .post(`${u.root}/shares`)
      .auth(u.username, PASSWORD)
      .set('Cookie', u.cookie)
      .set('Origin', EVIL)
      .set('Content-Type', 'application/json')
      .send(room('evil-basic'));
    assert.equal(basic.status, 403, basic.text);
    const basicOnly = await agent
      .post(`${u.root}/shares`)
      .auth(u.username, PASSWORD)
      .set('Origin', EVIL)
      .set('Content-Type', TEXT_PLAIN)
      .send(room('evil-basic-only'));
    assert.equal(basicOnly.status, 403, basicOnly.text);
    assert.match(basicOnly.body.reason, /another origin/);
    const rooms = JSON.stringify((await u.storage.listShares().expect(200)).body);
    assert.ok(rooms.includes('basic') && !rooms.includes('evil'), rooms);
    await agent
      .delete(`${u.root}/laptop/docs/a.txt`)
      .set('Cookie', u.cookie)
      .set('Origin', u.own)
      .expect((res) => assert.ok(res.status < 300, `${res.status} ${res.text}`));
  });

  it('interface A (both mounts), the billing API and webhooks refuse a write with the partner’s Basic credentials from another site', async () => {
    const { api: p, credentials } = await createPartner(target());
    const agent = supertest(target().url);
    const basic = (r: supertest.Test) => r.auth(credentials.username, credentials.password);
    const username = unique('xsa');
    const user = JSON.stringify({
      username,
      name: 'Evil',
      email: `${username}@example.com`,
      password: 'attacker-password-1',
    });
    for (const [path, headers] of [
      ['/users/', { Origin: EVIL }],
      ['/apis/accounts/v1/users/', { 'Sec-Fetch-Site': 'cross-site' }],
      ['/users/', { 'Sec-Fetch-Site': 'same-site' }],
      ['/apis/accounts/v1/users/', { Origin: 'null' }],
    ] as const) {
      const res = await basic(agent.post(path)).set(headers).set('Content-Type', TEXT_PLAIN).send(user);
      assert.equal(res.status, 403, `${path} ${JSON.stringify(headers)}: ${res.status} ${res.text}`);
      assert.match(res.body.reason, /another (origin|site)/);
    }
    await p.get(`/users/${username}`).expect(404);
    // the partner's password, a webhook to the attacker, a group, the billing API: all refused
    const password = await basic(agent.post('/apis/accounts/v1/partner/password'))
      .set(FROM_EVIL)
      .set('Content-Type', TEXT_PLAIN)
      .send(JSON.stringify('attacker-password-1'));
    assert.equal(password.status, 403, password.text);
    await p.get('/ping').expect(200);
    const hook = await basic(agent.post('/webhooks/'))
      .set(FROM_EVIL)
      .set('Content-Type', TEXT_PLAIN)
      .send(JSON.stringify({ url: 'https://evil.example/hook', event_types: ['*'] }));
    assert.equal(hook.status, 403, hook.text);
    const hook2 = await basic(agent.post('/apis/accounts/v1/webhooks/'))
      .set('Origin', EVIL)
      .set('Content-Type', TEXT_PLAIN)
      .send(JSON.stringify({ url: 'https://evil.example/hook', event_types: ['*'] }));
    assert.equal(hook2.status, 403, hook2.text);
    assert.deepEqual((await p.get('/webhooks/').expect(200)).body, []);
    const group = await basic(agent.post('/groups/'))
      .set(FROM_EVIL)
      .set('Content-Type', TEXT_PLAIN)
      .send(JSON.stringify({ name: 'evil', plan_id: 1 }));
    assert.equal(group.status, 403, group.text);
    const coupon = await basic(agent.post('/apis/billing/v1/coupon'))
      .set(FROM_EVIL)
      .set('Content-Type', TEXT_PLAIN)
      .send(JSON.stringify({ coupon: 'X' }));
    assert.equal(coupon.status, 403, coupon.text);
    const removed = await basic(agent.delete(`/users/${username}`)).set('Origin', EVIL);
    assert.equal(removed.status, 403, removed.text);
    // reads are not writes (a cross-site read of JSON is not readable by the page anyway)
    await basic(agent.get('/users/')).set(FROM_EVIL).expect(200);
  });

  it('clients without browser headers keep writing, netkes’ JSON sent as a form included; so do Burrow’s own origin and a user typing', async () => {
    const { api: p, credentials } = await createPartner(target());
    const agent = supertest(target().url);
    const basic = (r: supertest.Test) => r.auth(credentials.username, credentials.password);
    const body = (username: string) =>
      JSON.stringify({ username, name: 'N', email: `${username}@example.com`, password: 'user-password-1' });
    // the old netkes client: JSON with a form content type
    const netkes = await basic(agent.post('/apis/accounts/v1/users/'))
      .set('Content-Type', 'application/x-www-form-urlencoded')
      .send(body(unique('xsn')));
    assert.equal(netkes.status, 201, netkes.text);
    const own = await basic(agent.post('/users/'))
      .set('Origin', new URL(target().url).origin)
      .set('Sec-Fetch-Site', 'same-origin')
      .set('Content-Type', 'application/json')
      .send(body(unique('xso')));
    assert.equal(own.status, 201, own.text);
    const typed = await basic(agent.post('/users/'))
      .set('Sec-Fetch-Site', 'none')
      .set('Content-Type', 'application/json')
      .send(body(unique('xst')));
    assert.equal(typed.status, 201, typed.text);
    assert.equal((await p.get('/users/?action=user_count').expect(200)).body.user_count, 3);
  });

  it('WebDAV: every writing method with Basic from another site is refused; PROPFIND and GET are not', async () => {
    const { username } = await userWithDevice(target(), 'xsd', PASSWORD);
    const dav = davClient(target().url, username, PASSWORD);
    await dav.request('PUT', `/dav/${username}/laptop/a.txt`).send('kept').expect(201);
    const base = `/dav/${username}/laptop`;
    const writes: [DavMethod, string, Record<string, string>, string?][] = [
      ['PUT', `${base}/a.txt`, {}, 'evil'],
      ['PUT', `${base}/new.txt`, {}, 'evil'],
      ['DELETE', `${base}/a.txt`, {}],
      ['MKCOL', `${base}/evil/`, {}],
      ['MOVE', `${base}/a.txt`, { Destination: `${target().url}${base}/moved.txt` }],
      ['COPY', `${base}/a.txt`, { Destination: `${target().url}${base}/copied.txt` }],
      [
        'PROPPATCH',
        `${base}/a.txt`,
        { 'Content-Type': 'application/xml' },
        '<?xml version="1.0"?><D:propertyupdate xmlns:D="DAV:"><D:set><D:prop><x xmlns="urn:x">1</x></D:prop></D:set></D:propertyupdate>',
      ],
      [
        'LOCK',
        `${base}/a.txt`,
        { 'Content-Type': 'application/xml' },
        '<?xml version="1.0"?><D:lockinfo xmlns:D="DAV:"><D:lockscope><D:exclusive/></D:lockscope><D:locktype><D:write/></D:locktype></D:lockinfo>',
      ],
    ];
    for (const [method, path, headers, body] of writes) {
      for (const from of [{ Origin: EVIL }, { 'Sec-Fetch-Site': 'cross-site' }]) {
        const req = dav.request(method, path).set({ ...headers, ...from });
        const res = await (body === undefined ? req : req.send(body));
        assert.equal(res.status, 403, `${method} ${path} ${JSON.stringify(from)}: ${res.status} ${res.text}`);
      }
    }
    const listing = await dav.request('PROPFIND', `${base}/`).set({ Depth: '1', ...FROM_EVIL });
    assert.equal(listing.status, 207, listing.text);
    const names = [...listing.text.matchAll(/<D:href>([^<]+)<\/D:href>/g)].map((m) =>
      decodeURIComponent(m[1]).replace(/\/$/, '').split('/').pop(),
    );
    assert.deepEqual(names.sort(), ['a.txt', 'laptop'], 'nothing was created, moved or copied');
    const kept = await dav.request('GET', `${base}/a.txt`).set(FROM_EVIL).expect(200);
    assert.equal(kept.text, 'kept');
    // unlocked: a write without the headers succeeds
    await dav.request('PUT', `${base}/a.txt`).send('mine').expect(204);
  });

  it('a cross-site form cannot log someone in (login CSRF) nor use a set-password link; a share room takes no write from it either', async () => {
    const { username } = await userWithDevice(target(), 'xsl', PASSWORD);
    const agent = supertest(target().url);
    const login = await agent
      .post(`/storage/${b32(username)}/login`)
      .set(FROM_EVIL)
      .type('form')
      .send({ username, password: PASSWORD });
    assert.equal(login.status, 403, login.text);
    assert.equal(login.headers['set-cookie'], undefined, 'no session cookie');
    const browse = await agent
      .post('/browse/login')
      .set('Origin', EVIL)
      .type('form')
      .send({ username, password: PASSWORD });
    assert.equal(browse.status, 403, browse.text);
    assert.equal(browse.headers['set-cookie'], undefined);
    // the same forms from Burrow's own pages
    const own = new URL(target().url).origin;
    await agent
      .post('/browse/login')
      .set('Origin', own)
      .type('form')
      .send({ username, password: PASSWORD })
      .expect(200);
    const ownLogin = await agent
      .post(`/storage/${b32(username)}/login`)
      .set('Origin', own)
      .set('Sec-Fetch-Site', 'same-origin')
      .type('form')
      .send({ username, password: PASSWORD });
    assert.equal(ownLogin.status, 200, ownLogin.text);

    // a set-password link: another site's form is refused and the link stays unspent
    const p = await createPartner(target());
    const u = await createUser(p.api, { password: undefined });
    await p.api.post(`/users/${u.username}?action=sendactivationemail`).expect(200);
    const { path } = setPasswordLink(await latestMailTo(target(), u.user.email));
    const form = { password: 'attacker-password-1', confirm: 'attacker-password-1' };
    const evil = await agent.post(path).set(FROM_EVIL).type('form').send(form);
    assert.equal(evil.status, 403, evil.text);
    await agent.get(path).expect(200, /Choose your password/);
    await agent
      .post(path)
      .set('Origin', own)
      .type('form')
      .send({ password: 'users-own-password', confirm: 'users-own-password' })
      .expect(200, /Your password is set/);

    // a share room is read-only anyway; from another site the write is refused before anything
    const owner = await userWithDevice(target(), 'xsr', PASSWORD);
    await owner.storage.putFile('laptop', 'docs/a.txt', 'x').expect(201);
    const created = await owner.storage.createShare({ room_name: 'r', dirs: ['laptop/docs/'] }).expect(201);
    const roomPath = roomAddress(created.body.url as string);
    const write = await agent.post(`${roomPath}a.txt`).set(FROM_EVIL).type('form').send({ x: '1' });
    assert.equal(write.status, 403, write.text);
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
