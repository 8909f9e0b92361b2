/**
 * Issue 39, defect 4, on the production servers (multi-process, the PostgreSQL event store): a
 * group's plan change is acknowledged at its commit point and its members follow after the reply,
 * as a multi-step write that survives a crash, its progress readable on the group
 * (`plan_status`, and `plan_members_pending` on GET of the group). Before, the reply waited for
 * every member, and a group of a few dozen members under load ran into the bus timeout.
 * (The figures, 20 and 10,000 members, are `npm run bench:accounts`'s.)
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { partnerApi } from './harness/client.js';
import { natsUrlForTests, startMultiProcess } from './harness/multi-process.js';

const natsUrl = natsUrlForTests();
const postgresUrl = process.env.POSTGRES_URL;
const skip = !natsUrl
  ? 'NATS_URL not set and no nats-server found'
  : !postgresUrl
    ? 'POSTGRES_URL not set and no PostgreSQL server on 127.0.0.1:5432'
    : false;
const MEMBERS = 200;
/** how long the members may stand still before recovery counts as stuck (it adopts them one by one) */
const STALL_MS = 90_000;

describe('group plan changes (multi-process, PostgreSQL event store)', { skip, timeout: 480_000 }, () => {
  it('answers at once with plan_status updating, the members follow, and a crash meanwhile is finished by recovery', async () => {
    const target = await startMultiProcess(
      natsUrl!,
      { BURROW_RECOVERY_GRACE_SECONDS: '3', BURROW_RECOVERY_INTERVAL_MS: '500', LOG_LEVEL: 'info' },
      { postgresEventStore: postgresUrl },
    );
    try {
      const api = partnerApi(target);
      const group = (await api.post('/groups/', { name: 'Big', plan_id: 1 }).expect(201)).body as { group_id: number };
      let next = 0;
      await Promise.all(
        Array.from({ length: 8 }, async () => {
          while (next < MEMBERS) {
            const i = next++;
            await api
              .post('/users/', {
                name: `Member ${i}`,
                email: `member${i}@example.com`,
                username: `member${i}`,
                group_id: group.group_id,
              })
              .expect(201);
          }
        }),
      );
      const members = async () =>
        (
          (await api.get('/users/?limit=1000').expect(200)).body as {
            username: string;
            group_id: number | null;
            plan_id: number;
          }[]
        ).filter((u) => u.group_id === group.group_id);
      assert.equal((await members()).length, MEMBERS);
      assert.equal((await api.get(`/groups/${group.group_id}`).expect(200)).body.plan_status, 'current');

      const changed = await api.post(`/groups/${group.group_id}`, { plan_id: 2 });
      assert.equal(changed.status, 200, changed.text);
      assert.equal(changed.body.plan_id, 2);
      // acknowledged before the members have followed: the group says so, and how many are left
      const during = (await api.get(`/groups/${group.group_id}`).expect(200)).body;
      assert.equal(during.plan_status, 'updating', JSON.stringify(during));
      assert.ok(during.plan_members_pending > 0 && during.plan_members_pending <= MEMBERS, JSON.stringify(during));

      // the service dies half way; a new one's recovery finishes the members
      target.killApp('accounts');
      await target.exited('accounts');
      target.startApp('accounts');
      // (Recovery runs one at a time: overlapping runs, every 500 ms here, settled the same members
      // at once and contended on the partner's ledger; write-process.ts.) Recovery adopts the
      // members one by one, each a multi-step write that waits for the read models: on FerretDB on
      // a loaded 2-core machine 1-2 members a second (stop 44), so the test waits for progress, not
      // for a fixed time: it fails when the pending count stands still for STALL_MS.
      let last = '';
      let pending = Infinity;
      let movedAt = Date.now();
      for (;;) {
        const res = await api.get(`/groups/${group.group_id}`);
        last = `${res.status} ${res.text}`;
        if (res.status === 200 && res.body.plan_status === 'current') break;
        const now = (res.body as { plan_members_pending?: number }).plan_members_pending;
        if (typeof now === 'number' && now < pending) {
          pending = now;
          movedAt = Date.now();
        }
        if (Date.now() - movedAt > STALL_MS)
          throw new Error(`the members stopped following for ${STALL_MS / 1000} s: ${last}`);
        await new Promise((r) => setTimeout(r, 250));
      }
      const after = await members();
      assert.equal(after.length, MEMBERS);
      assert.deepEqual(
        after.filter((u) => u.plan_id !== 2).map((u) => u.username),
        [],
        'every member on the new plan',
      );
      assert.equal((await api.get(`/groups/${group.group_id}`).expect(200)).body.plan_members_pending, undefined);
    } catch (error) {
      const logs = target.processes().map((p) => `--- ${p.name}:\n${p.output.slice(-4000)}`);
      throw new Error(`${(error as Error).message}\n${logs.join('\n')}`, { cause: error });
    } finally {
      await target.close();
    }
  });
});
