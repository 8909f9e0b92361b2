/**
 * Moving a deleted group's members when someone else already moved them: two replicas recovering
 * one DeleteGroup at once do exactly this. The read model of the late one still lists the members
 * in the group; it must wait for its read model to show the other's moves, not re-read the same
 * stale page at once (which, with every step a no-op, never yields to the projection runner: a
 * livelock at 100% CPU that hung the groups crash-recovery suite).
 */
import assert from 'node:assert/strict';
import { afterEach, describe, it } from 'node:test';
import type { AccountsContext } from '../context.js';
import { cleanUpTestAccounts, GB, startTestAccounts } from '../testing/test-context.js';
import { moveMembers } from './group-members.js';

describe('moveMembers', () => {
  afterEach(cleanUpTestAccounts);

  it('waits for its read model to show the moves another writer made, then ends', async () => {
    const t = await startTestAccounts();
    const late = await startTestAccounts({ dir: t.dir }); // a second replica on the same store
    try {
      const p = await t.createPartner({ bytes_available: 20_000 * GB });
      const team = (await t.groups.create({ partnerId: p.partner_id, name: 'Team', plan_id: 1 })).group_id;
      const target = (await t.groups.create({ partnerId: p.partner_id, name: 'Target', plan_id: 3 })).group_id;
      for (const n of [1, 2])
        await t.users.create({
          partnerId: p.partner_id,
          username: `member${n}`,
          name: `M${n}`,
          email: `m${n}@example.com`,
          group_id: team,
        });
      await late.runner.catchUp();
      // the late replica's read model stops here: both members in Team
      await late.runner.stop();
      assert.equal(
        (await moveMembers(t.ctx, p.partner_id, team, target)) !== null,
        true,
        'the first replica moved them',
      );
      const head = await t.store.headPosition();

      // the late replica: its read model shows the moves once it is waited for up to the head
      const waited: (number | null)[] = [];
      const ctx: AccountsContext = {
        ...late.ctx,
        runner: {
          waitFor: async (position: number | null) => {
            waited.push(position);
            if (position !== null && position >= head) ctx.docs = t.docs;
            else if (waited.length > 3)
              throw new Error(`re-read a stale page after waiting only for ${String(position)}`);
          },
        } as unknown as AccountsContext['runner'],
      };
      assert.equal(await moveMembers(ctx, p.partner_id, team, target), null, 'nothing left to move');
      assert.deepEqual(waited, [head]);
      assert.deepEqual(
        (await t.users.list({ partnerId: p.partner_id })).parse().map((u) => [u.username, u.group_id, u.plan_id]),
        [
          ['member1', target, 3],
          ['member2', target, 3],
        ],
      );
    } finally {
      await late.close({ keepFiles: true });
      await t.close();
    }
  });
});
