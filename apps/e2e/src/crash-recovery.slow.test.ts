/**
 * A crash in the middle of a multi-step write is recovered (issue "Reliability", item 2): the
 * accounts process is killed with SIGKILL at a chosen step of a write (the fault-injection hook
 * BURROW_FAULT_KILL_AT, not timing luck), restarted, and the write is then either complete or
 * undone: no reservation without its owner, no allocation without its user, names reusable, the
 * partner's bytes_allocated exactly the sum of its users' plan + bonus bytes.
 * Multi-process mode on a real NATS server; about a minute.
 */
import type { Plan, UserRecord } from '@burrow/contracts';
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type PartnerApi, partnerApi } from './harness/client.js';
import { type MultiProcessTarget, natsUrlForTests, startMultiProcess } from './harness/multi-process.js';
import { storageApi } from './harness/storage-client.js';

const natsUrl = natsUrlForTests();

async function eventually<T>(check: () => Promise<T>, timeoutMs = 15_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      return await check();
    } catch (error) {
      if (Date.now() > deadline) throw error;
      await new Promise((r) => setTimeout(r, 200));
    }
  }
}

describe(
  'crash mid-write (multi-process, SIGKILL at each step)',
  { skip: natsUrl ? false : 'NATS_URL not set and no nats-server found', timeout: 600_000 },
  () => {
    let target: MultiProcessTarget;
    let api: PartnerApi;
    let plans: Plan[];

    before(async () => {
      target = await startMultiProcess(natsUrl!, { BURROW_RPC_TIMEOUT_MS: '1500', BURROW_RECOVERY_GRACE_SECONDS: '0' });
      api = partnerApi(target);
      plans = (await api.get('/plans').expect(200)).body;
    });
    after(async () => {
      await target?.close();
    });

    /** Runs `request` with accounts set to die at `point`, then restarts accounts without the fault. */
    async function crashAt(point: string, request: () => Promise<{ status: number }>): Promise<void> {
      await target.stopApp('accounts');
      target.startApp('accounts', { BURROW_FAULT_KILL_AT: point });
      await eventually(async () => assert.equal((await api.get('/ping')).status, 200), 60_000);
      const res = await request();
      assert.equal(res.status, 503, `${point}: the request dies with accounts`);
      await target.exited('accounts');
      const killed = target
        .processes()
        .filter((p) => p.name.startsWith('accounts'))
        .at(-1)!;
      assert.equal(killed.signalCode, 'SIGKILL', `${point}: accounts was killed at the fault point`);
      target.startApp('accounts');
      // On MongoDB/FerretDB read models a commit the killed process left half-applied is finished by
      // the next writer at once when it sees its writer's process is gone (same machine), else after
      // 30 s (libs/documents/src/mongo-journal.ts): the generous limit covers the second case.
      await eventually(async () => assert.equal((await api.get('/ping')).status, 200), 60_000);
    }

    /** bytes_allocated equals the sum over users of plan bytes + bonus, once recovery has run. */
    async function ledgerIsExact(): Promise<void> {
      await eventually(async () => {
        const users = (await api.get('/users/?limit=10000').expect(200)).body as UserRecord[];
        const expected = users.reduce(
          (sum, u) => sum + plans.find((p) => p.plan_id === u.plan_id)!.storage_bytes + u.bonus_bytes,
          0,
        );
        const quota = (await api.get('/partner/quota').expect(200)).body;
        assert.equal(quota.bytes_allocated, expected, "bytes_allocated is the sum of the users' allocations");
      });
    }

    for (const step of [
      'reserve-username:after',
      'reserve-email:after',
      'allocate:after',
      'commit:before',
      'commit:after',
    ]) {
      it(`create user, killed at ${step}: afterwards the user exists whole, or not at all and both names are free`, async () => {
        const name = `crash${step.replace(/[^a-z]/g, '')}`;
        const body = {
          name: 'Crash Test',
          email: `${name}@example.com`,
          username: name,
          password: 'crash-password-1',
          plan_id: plans[0].plan_id,
        };
        await crashAt(`CreateUser:${step}`, () => api.post('/users/', body));
        await eventually(async () => {
          const found = await api.get(`/users/${name}`);
          if (found.status === 200) {
            // committed: complete, and its email is taken
            assert.equal(found.body.email, body.email);
            const again = await api.post('/users/', { ...body, username: `${name}2` });
            assert.equal(again.status, 409, 'the email stays reserved by the user who has it');
          } else {
            assert.equal(found.status, 404);
            // undone: both names can be used again, by a new create
            await api.post('/users/', body).expect(201);
          }
        });
        await ledgerIsExact();
      });
    }

    it('change a user (email and plan), killed after allocating: the old state stands, the new email is free, the ledger exact', async () => {
      await api
        .post('/users/', {
          name: 'Mover',
          email: 'mover@example.com',
          username: 'mover',
          password: 'crash-password-1',
          plan_id: plans[0].plan_id,
        })
        .expect(201);
      await crashAt('ChangeUser:allocate:after', () =>
        api.post('/users/mover', { email: 'moved@example.com', plan_id: plans[1].plan_id }),
      );
      await eventually(async () => {
        const user = (await api.get('/users/mover').expect(200)).body;
        assert.equal(user.email, 'mover@example.com');
        assert.equal(user.plan_id, plans[0].plan_id);
      });
      await ledgerIsExact();
      await api
        .post('/users/', {
          name: 'Other',
          email: 'moved@example.com',
          username: 'other-mover',
          password: 'crash-password-1',
        })
        .expect(201);
      await ledgerIsExact();
    });

    it('delete a user, killed right after the delete committed: the allocation returns and the names are free', async () => {
      await api
        .post('/users/', {
          name: 'Goner',
          email: 'goner@example.com',
          username: 'goner',
          password: 'crash-password-1',
          plan_id: plans[1].plan_id,
        })
        .expect(201);
      await crashAt('DeleteUser:commit:after', () => api.delete('/users/goner'));
      await api.get('/users/goner').expect(404);
      await ledgerIsExact();
      await eventually(async () => {
        await api
          .post('/users/', {
            name: 'Goner again',
            email: 'goner@example.com',
            username: 'goner',
            password: 'crash-password-1',
          })
          .expect(201);
      });
    });

    it("change a user's password (and email), killed right after the change committed: as soon as accounts is back, the gateway refuses the old password it remembered", async () => {
      const password = 'crash-password-1';
      const changed = 'crash-password-2';
      await api
        .post('/users/', {
          name: 'Remembered',
          email: 'remembered@example.com',
          username: 'remembered',
          password,
          plan_id: plans[0].plan_id,
        })
        .expect(201);
      const before = storageApi(target, 'remembered', password);
      // a new email makes the change a multi-step write, with a commit point to die after
      await crashAt('ChangeUser:commit:after', async () => {
        // the gateway confirms the login with the accounts about to die, and remembers it (asked twice)
        for (let i = 0; i < 2; i++) await before.listShares().expect(200);
        return api.post('/users/remembered', { email: 'remembered-2@example.com', password: changed });
      });
      // well within the gateway's memory of the login (30 s): only a forget from accounts ends it
      assert.equal((await before.listShares()).status, 401, 'the old password, which the gateway remembered');
      await storageApi(target, 'remembered', changed).listShares().expect(200);
      assert.equal((await api.get('/users/remembered').expect(200)).body.email, 'remembered-2@example.com');
      await ledgerIsExact();
    });

    it('create a group, killed after taking its id: the name is free again (or the group exists)', async () => {
      await crashAt('CreateGroup:allocate-id:after', () =>
        api.post('/groups/', { name: 'Crashers', plan_id: plans[0].plan_id }),
      );
      await eventually(async () => {
        const groups = (await api.get('/groups/').expect(200)).body as { name: string }[];
        assert.ok(!groups.some((g) => g.name === 'Crashers'), 'no group was created before its commit');
        await api.post('/groups/', { name: 'Crashers', plan_id: plans[0].plan_id }).expect(201);
      });
    });

    it('rename a group, killed after reserving the new name: the group keeps its name and the new one is free', async () => {
      const group = (await api.post('/groups/', { name: 'Before', plan_id: plans[0].plan_id }).expect(201)).body;
      await crashAt('UpdateGroup:reserve-name:after', () => api.post(`/groups/${group.group_id}`, { name: 'After' }));
      await eventually(async () => {
        assert.equal((await api.get(`/groups/${group.group_id}`).expect(200)).body.name, 'Before');
        await api.post('/groups/', { name: 'After', plan_id: plans[0].plan_id }).expect(201);
      });
    });
  },
);
