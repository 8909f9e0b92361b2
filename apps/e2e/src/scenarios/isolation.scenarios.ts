/**
 * Tenant isolation (DESIGN §5, §6): a partner naming another partner's group ids, usernames or
 * emails gets 404 (or an empty list), and nothing of the other tenant shows in its lists, counts,
 * quota, share list or client revisions.
 */
import assert from 'node:assert/strict';
import { before, it } from 'node:test';
import { createPartner, type PartnerApi, partnerApi } from '../harness/client.js';
import { storageApi } from '../harness/storage-client.js';
import {
  assertConflict,
  assertError,
  type CreatedUser,
  createGroup,
  createUser,
  eventually,
  GB,
  type GroupBody,
  getUser,
  knownPlans,
  StorageEvents,
  unique,
} from './accounts-fixtures.js';
import type { ScenarioContext } from './scenarios.js';

export function isolationScenarios({ target }: ScenarioContext) {
  let a: PartnerApi;
  let b: PartnerApi;
  let aGroup: GroupBody;
  let aUser: CreatedUser;
  let bGroup: GroupBody;
  let bUser: CreatedUser;

  before(async () => {
    a = (await createPartner(target(), { bytes_available: 100_000 * GB })).api;
    b = (await createPartner(target(), { bytes_available: 100_000 * GB })).api;
    const plans = await knownPlans(a);
    aGroup = await createGroup(a, { name: unique('shared-name'), plan_id: plans.medium.plan_id });
    aUser = await createUser(a, { group_id: aGroup.group_id, name: 'Alice of A' });
    // B may use the same group name: group names are unique per partner
    bGroup = await createGroup(b, { name: aGroup.name, plan_id: plans.small.plan_id });
    bUser = await createUser(b, { group_id: bGroup.group_id, name: 'Bob of B' });
    const storage = await StorageEvents.open(target());
    try {
      const ids = await storage.idsOf(aUser.username);
      const device = await storage.registerDevice(ids, { name: 'a-laptop', client_revision: 4242 });
      await storage.commitFile(device, 'a-laptop/secret.txt', 123_456);
      await storage.createShare(ids, { room_key: 'a-room', name: 'A room' });
    } finally {
      await storage.close();
    }
    await eventually(async () => {
      const q = (await a.get('/partner/quota').expect(200)).body;
      assert.deepEqual([q.device_count, q.share_count, q.bytes_used], [1, 1, 123_456]);
    });
  });

  it("another partner's group id is 404 for read, update and delete, and the group is untouched", async () => {
    const id = aGroup.group_id;
    assertError(await b.get(`/groups/${id}`), 404);
    assertError(await b.post(`/groups/${id}`, { name: unique('stolen') }), 404);
    assertError(await b.post(`/groups/${id}`, { plan_id: 1, force: true }), 404);
    assertError(await b.delete(`/groups/${id}`), 404);
    assertError(await b.delete(`/groups/${id}?move_to=${bGroup.group_id}`), 404);
    assertError(await b.post(`/groups/${id}?action=delete`), 404);
    assertError(await b.get(`/apis/accounts/v1/groups/${id}`), 404);
    assert.deepEqual((await a.get(`/groups/${id}`).expect(200)).body, aGroup);
    assert.equal((await getUser(a, aUser.username)).group_id, id);
  });

  it("another partner's group cannot be a move_to target, a new user's group or a user's group", async () => {
    const plans = await knownPlans(b);
    const doomed = await createGroup(b, { name: unique('doomed'), plan_id: plans.small.plan_id });
    const member = await createUser(b, { group_id: doomed.group_id });
    const res = await b.delete(`/groups/${doomed.group_id}?move_to=${aGroup.group_id}`);
    assert.ok(res.status === 400 || res.status === 404, `${res.status} ${res.text}`);
    assert.equal((await getUser(b, member.username)).group_id, doomed.group_id);
    assertConflict(
      await b.post('/users/', {
        username: unique(),
        name: 'X',
        email: `${unique()}@example.com`,
        group_id: aGroup.group_id,
      }),
      'group_id',
    );
    assertConflict(await b.post(`/users/${bUser.username}`, { group_id: aGroup.group_id }), 'group_id');
    assert.deepEqual(
      (await a.get(`/users/?group_id=${aGroup.group_id}`).expect(200)).body.map(
        (u: { username: string }) => u.username,
      ),
      [aUser.username],
    );
  });

  it("another partner's users are 404 by username and by email, for every user endpoint", async () => {
    for (const key of [aUser.username, aUser.user.email, aUser.user.email.toUpperCase()]) {
      assertError(await b.get(`/users/${key}`), 404);
      assertError(await b.get(`/users/${key}/devices`), 404);
      assertError(await b.get(`/users/${key}/shares/`), 404);
      assertError(await b.get(`/users/${key}/shares/a-room`), 404);
      assertError(await b.post(`/users/${key}/shares/a-room?action=disable`, {}), 404);
      assertError(await b.post(`/users/${key}`, { name: 'Hijacked', enabled: false }), 404);
      assertError(await b.post(`/users/${key}?action=delete`), 404);
      assertError(await b.delete(`/users/${key}`), 404);
    }
    const still = await getUser(a, aUser.username);
    assert.equal(still.name, 'Alice of A');
    assert.equal(still.enabled, true);
    assert.equal((await a.get(`/users/${aUser.username}/shares/a-room`).expect(200)).body.enabled, true);
  });

  it("login names are one namespace across partners: another partner's username equal to a user's email, or email equal to a username, is 409 naming it (issue 33, item 4)", async () => {
    // partners of its own: the other tests count a's and b's users
    const a = (await createPartner(target())).api;
    const b = (await createPartner(target())).api;
    const alice = await createUser(a, { username: unique('alice'), password: 'alice-password-1' });
    const squat = { name: 'Squatter', email: `${unique('squat')}@example.com`, password: 'squat-password-1' };
    assertConflict(await b.post('/users/', { ...squat, username: alice.user.email.toUpperCase() }), 'username');
    // her email login reaches her own storage (the squatter's would have answered it before)
    await storageApi(target(), alice.user.email, 'alice-password-1').listShares().expect(200);
    assertError(await storageApi(target(), alice.user.email, 'squat-password-1').listShares(), 401);
    // taken in advance: a username with @ bars the same address as another user's email, on create and on change
    const early = `${unique('early')}@late.example`;
    await createUser(b, { username: early, email: `${unique('early')}@example.com` });
    assertConflict(
      await a.post('/users/', { username: unique('late'), name: 'Late', email: early, password: 'late-password-1' }),
      'email',
    );
    assertConflict(await a.post(`/users/${alice.username}`, { email: early.toUpperCase() }), 'email');
    assert.equal((await getUser(a, alice.username)).email, alice.user.email);
  });

  it("lists and counts hold only the partner's own users and groups", async () => {
    const bUsers = (await b.get('/users/').expect(200)).body as { username: string }[];
    assert.deepEqual(
      bUsers.map((u) => u.username).filter((n) => n === aUser.username),
      [],
    );
    assert.ok(bUsers.some((u) => u.username === bUser.username));
    for (const q of [
      `search=${aUser.username}`,
      `search=${encodeURIComponent(aUser.user.email)}`,
      `group_id=${aGroup.group_id}`,
      'search=Alice%20of%20A',
    ]) {
      assert.deepEqual((await b.get(`/users/?${q}`).expect(200)).body, [], q);
      assert.deepEqual((await b.get(`/users/?action=user_count&${q}`).expect(200)).body, { user_count: 0 }, q);
    }
    assert.deepEqual(
      (await b.get(`/users/?search_by=${encodeURIComponent(`avatar_id=${aUser.user.avatar_id}`)}`).expect(200)).body,
      [],
    );
    assert.deepEqual((await b.get('/users/?action=user_count').expect(200)).body, { user_count: bUsers.length });
    const bGroups = (await b.get('/groups/').expect(200)).body as GroupBody[];
    assert.ok(!bGroups.some((g) => g.group_id === aGroup.group_id));
    assert.deepEqual((await b.get(`/groups/?search=${aGroup.name}`).expect(200)).body, [bGroup]);
    assert.deepEqual((await a.get(`/groups/?search=${aGroup.name}`).expect(200)).body, [aGroup]);
  });

  it('quota, the share list and client revisions hold nothing of the other partner', async () => {
    const plans = await knownPlans(b);
    const qb = (await b.get('/partner/quota').expect(200)).body;
    assert.equal(qb.bytes_used, 0);
    assert.equal(qb.share_count, 0);
    assert.equal(qb.device_count, 0);
    const bAllocated = ((await b.get('/users/').expect(200)).body as { plan_id: number; bonus_bytes: number }[]).reduce(
      (sum, u) => sum + plans.all.find((p) => p.plan_id === u.plan_id)!.storage_bytes + u.bonus_bytes,
      0,
    );
    assert.equal(qb.bytes_allocated, bAllocated);
    const qa = (await a.get('/partner/quota').expect(200)).body;
    assert.equal(qa.bytes_allocated, plans.medium.storage_bytes);
    assert.deepEqual((await b.get('/shares/').expect(200)).body, []);
    assert.deepEqual((await b.get('/clientrevisions/').expect(200)).body, []);
    assert.deepEqual((await a.get('/clientrevisions/').expect(200)).body, [{ revision: 4242, count: 1 }]);
    assert.deepEqual(
      ((await a.get('/shares/').expect(200)).body as { username: string }[]).map((u) => u.username),
      [aUser.username],
    );
    // the bootstrap partner sees none of it either
    const main = partnerApi(target());
    assert.ok(
      !((await main.get('/clientrevisions/').expect(200)).body as { revision: number }[]).some(
        (r) => r.revision === 4242,
      ),
    );
    assert.ok(
      !((await main.get('/shares/').expect(200)).body as { username: string }[]).some(
        (u) => u.username === aUser.username,
      ),
    );
  });

  it("one partner's settings, password and features do not touch another's", async () => {
    await b.post('/partner/settings', { support_email: 'b-help@example.com' }).expect(200);
    assert.notEqual((await a.get('/partner/settings').expect(200)).body.support_email, 'b-help@example.com');
    const infoA = (await a.get('/partner/info').expect(200)).body;
    const infoB = (await b.get('/partner/info').expect(200)).body;
    assert.notEqual(infoA.partner_id, infoB.partner_id);
  });
}
