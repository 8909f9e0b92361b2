/**
 * What ends sessions, links and session extensions (issue 18, item 3): disabling a user ends them
 * all, as a password change does, and re-enabling the user brings none of them back. And what
 * stops sharing (item 5): a partner turning `sharing_enabled` off stops links, share rooms and
 * session extensions until it is turned back on.
 *
 * Each gateway remembers, briefly, the logins and sessions accounts confirmed (issue 38: one bus
 * round trip per download): a change made through one gateway must end them on every other at the
 * next request (in multi-process mode the first and the last gateway are two processes).
 */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import supertest from 'supertest';
import { createPartner, partnerApi } from '../harness/client.js';
import { b32, storageApi } from '../harness/storage-client.js';
import { createGroup, createUser, knownPlans, unique } from './accounts-fixtures.js';
import type { ScenarioContext } from './scenarios.js';
import { roomAddress, userWithShareRoom } from './share-fixtures.js';

const PASSWORD = 'user-password-1';

export function revocationScenarios({ target }: ScenarioContext) {
  const api = () => partnerApi(target());

  /** A user with a file, a cookie session, a link to the file and a session extension for it. */
  async function userWithGrants() {
    const username = unique('rv');
    await createUser(api(), { username, password: PASSWORD });
    const storage = storageApi(target(), username, PASSWORD);
    await storage.putDevice('laptop').expect(200);
    assert.equal((await storage.putFile('laptop', 'a.txt', 'secret')).status, 201);
    const root = `/storage/${b32(username)}`;
    const agent = supertest(target().url);
    const login = await agent.post(`${root}/login`).type('form').send({ username, password: PASSWORD }).expect(200);
    const cookie = (login.headers['set-cookie'] as unknown as string[])[0].split(';')[0];
    const link = (await agent.post(`${root}/laptop/a.txt`).auth(username, PASSWORD).expect(200)).text;
    const se = (
      await agent.get(`${root}/laptop/a.txt?format=session_extension&ip=127.0.0.1`).auth(username, PASSWORD).expect(200)
    ).text;
    const grants = {
      cookie: () => agent.get(`${root}/`).set('Cookie', cookie),
      link: () => agent.get(link),
      extension: () => agent.get(`${root}/laptop/a.txt?se=${encodeURIComponent(se)}`),
    };
    return { username, grants };
  }

  it('disabling a user ends their cookies, links and extensions; re-enabling brings none back; a new login works', async () => {
    const u = await userWithGrants();
    for (const [what, request] of Object.entries(u.grants))
      assert.equal((await request()).status, 200, `${what} before`);
    await api().post(`/users/${u.username}`, { enabled: false }).expect(200);
    for (const [what, request] of Object.entries(u.grants))
      assert.notEqual((await request()).status, 200, `${what} while disabled`);
    await api().post(`/users/${u.username}`, { enabled: true }).expect(200);
    for (const [what, request] of Object.entries(u.grants)) {
      const res = await request();
      assert.ok(
        [401, 403, 404, 410].includes(res.status),
        `${what} after re-enabling: ${res.status} ${res.text.slice(0, 200)}`,
      );
    }
    // the account itself works again: Basic, and a fresh login
    await supertest(target().url)
      .get(`/storage/${b32(u.username)}/`)
      .auth(u.username, PASSWORD)
      .expect(200);
  });

  it('a password change ends them too (the mechanism disabling reuses)', async () => {
    const u = await userWithGrants();
    await api().post(`/users/${u.username}`, { password: 'a-new-password-2' }).expect(200);
    for (const [what, request] of Object.entries(u.grants))
      assert.notEqual((await request()).status, 200, `${what} after a password change`);
  });

  it('a change through one gateway ends what another remembers at its next request: password (cookie and Basic), logout, disable, the web interface off', async () => {
    const [a, b] = [target().urls[0], target().urls[target().urls.length - 1]];
    const plans = await knownPlans(api());
    const group = await createGroup(api(), { name: unique('rvg'), plan_id: plans.large.plan_id, webapi_enable: true });
    const username = unique('rm');
    await createUser(api(), { username, password: PASSWORD, group_id: group.group_id });
    const storage = storageApi(target(), username, PASSWORD);
    await storage.putDevice('laptop').expect(200);
    assert.equal((await storage.putFile('laptop', 'a.txt', 'secret')).status, 201);
    const root = `/storage/${b32(username)}`;
    const file = `${root}/laptop/a.txt`;
    const loginOn = async (url: string, password: string) => {
      const login = await supertest(url).post(`${root}/login`).type('form').send({ username, password }).expect(200);
      return (login.headers['set-cookie'] as unknown as string[])[0].split(';')[0];
    };
    const withCookie = (cookie: string) => supertest(b).get(file).set('Cookie', cookie);
    const withBasic = (password: string) => supertest(b).get(file).auth(username, password);
    // B confirms both and remembers them (asked twice: the second from memory)
    const cookie = await loginOn(a, PASSWORD);
    for (let i = 0; i < 2; i++) {
      assert.equal((await withCookie(cookie)).text, 'secret');
      assert.equal((await withBasic(PASSWORD)).text, 'secret');
    }
    // a password change through A's interface A
    const changed = 'a-new-password-2';
    await partnerApi(target(), a).post(`/users/${username}`, { password: changed }).expect(200);
    assert.equal((await withCookie(cookie)).status, 401, 'the old cookie on B');
    assert.equal((await withBasic(PASSWORD)).status, 401, 'the old password on B');
    assert.equal((await withBasic(changed)).status, 200, 'the new password on B');
    // a logout through A
    const second = await loginOn(a, changed);
    for (let i = 0; i < 2; i++) await withCookie(second).expect(200);
    await supertest(a)
      .post(`${root}/logout`)
      .set('Cookie', second)
      .expect((res) => assert.ok(res.status < 400, `logout: ${res.status}`));
    assert.equal((await withCookie(second)).status, 401, 'a logged-out cookie on B');
    // the group's web interface off, through A
    const third = await loginOn(a, changed);
    await withCookie(third).expect(200);
    await withBasic(changed).expect(200);
    await partnerApi(target(), a).post(`/groups/${group.group_id}`, { webapi_enable: false }).expect(200);
    assert.equal((await withCookie(third)).status, 403, 'the cookie once the web interface is off');
    assert.equal((await withBasic(changed)).status, 403, 'Basic once the web interface is off');
    await partnerApi(target(), a).post(`/groups/${group.group_id}`, { webapi_enable: true }).expect(200);
    await withBasic(changed).expect(200);
    // disabled through A
    await partnerApi(target(), a).post(`/users/${username}`, { enabled: false }).expect(200);
    assert.equal((await withBasic(changed)).status, 403, 'Basic of a disabled user on B');
    assert.notEqual((await withCookie(third)).status, 200, 'the cookie of a disabled user on B');
  });

  it('sharing_enabled off stops links, share rooms (JSON and pages) and extensions; back on, they serve again', async () => {
    const { api: p } = await createPartner(target());
    const shared = await userWithShareRoom(target(), p, { files: { 'Documents/hello.txt': 'hello world' } });
    const agent = supertest(target().url);
    const root = `/storage/${b32(shared.username)}`;
    const auth = (r: supertest.Test) => r.auth(shared.username, shared.password);
    const link = (await auth(agent.post(`${root}/laptop/Documents/hello.txt`)).expect(200)).text;
    const se = (
      await auth(agent.get(`${root}/laptop/Documents/hello.txt?format=session_extension&ip=127.0.0.1`)).expect(200)
    ).text;
    const roomPath = roomAddress(shared.room.url);
    const shares = {
      link: () => agent.get(link),
      extension: () => agent.get(`${root}/laptop/Documents/hello.txt?se=${encodeURIComponent(se)}`),
      room: () => agent.get(roomPath),
      'room file': () => agent.get(`${roomPath}laptop/Documents/hello.txt`),
      'room zip': () => agent.get(`${roomPath}?format=zip`),
      'room page': () => agent.get(roomPath).set('Accept', 'text/html'),
    };
    for (const [what, request] of Object.entries(shares)) assert.equal((await request()).status, 200, `${what} before`);
    await p.post('/partner/settings', { sharing_enabled: false }).expect(200);
    for (const [what, request] of Object.entries(shares)) {
      const res = await request();
      assert.ok([403, 404].includes(res.status), `${what} with sharing off: ${res.status} ${res.text.slice(0, 200)}`);
    }
    // the owner still reaches their own files
    await auth(agent.get(`${root}/laptop/Documents/hello.txt`)).expect(200);
    await p.post('/partner/settings', { sharing_enabled: true }).expect(200);
    for (const [what, request] of Object.entries(shares))
      assert.equal((await request()).status, 200, `${what} back on`);
  });
}
