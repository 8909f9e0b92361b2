/**
 * A member writer that read the group before its latest plan change, racing that change's own pass
 * over the members, which finds the member already on the new plan and writes nothing: the member
 * must still end on the group's plan. Deterministic: the writer's read of the group is where the
 * other change is made (the multi-process concurrency scenario met this interleaving by chance).
 */
import { Streams } from '@burrow/contracts';
import { appendEvents } from '@burrow/eventsourcing';
import type { EventStore } from '@burrow/event-store';
import assert from 'node:assert/strict';
import { afterEach, describe, it } from 'node:test';
import type { AccountsContext } from '../context.js';
import { cleanUpTestAccounts, GB, startTestAccounts } from '../testing/test-context.js';
import { usersCollection } from '../read-models/users.projection.js';
import { adoptGroupPlan } from './member-plan.js';

describe('adoptGroupPlan', () => {
  afterEach(cleanUpTestAccounts);

  it('a writer that read the plan before the last change puts the member back on the group plan', async () => {
    const t = await startTestAccounts();
    try {
      const p = await t.createPartner({ bytes_available: 20_000 * GB });
      const group = (await t.groups.create({ partnerId: p.partner_id, name: 'Team', plan_id: 3 })).group_id;
      await t.users.create({
        partnerId: p.partner_id,
        username: 'member',
        name: 'M',
        email: 'm@example.com',
        group_id: group,
      });
      const userId = (await usersCollection(t.ctx.docs).findOne({ username: 'member' }))!._id;
      // the group's plan moves to 1 without its pass over the members yet: the pass is our writer
      const groupStream = Streams.group(group);
      const { revision } = (await t.store.readStream(groupStream)).at(-1)!;
      await appendEvents(t.store, groupStream, [{ type: 'GroupPlanChanged', data: { plan_id: 1 } }], revision);

      // the writer reads the group (plan 1); before it writes, the plan goes back to 3 through the
      // handler, whose pass finds the member still on 3 and writes nothing
      let raced = false;
      const store: EventStore = Object.create(t.store, {
        readStream: {
          value: async (stream: string, options?: Parameters<EventStore['readStream']>[1]) => {
            const events = await t.store.readStream(stream, options);
            if (stream === groupStream && !raced) {
              raced = true;
              await t.groups.update({ partnerId: p.partner_id, group_id: group, changes: { plan_id: 3 } });
            }
            return events;
          },
        },
      });
      const ctx: AccountsContext = { ...t.ctx, store };
      await adoptGroupPlan(ctx, p.partner_id, userId, group, 'test');
      assert.ok(raced, 'the race was staged');
      await t.runner.catchUp();
      const [user] = (await t.users.list({ partnerId: p.partner_id })).parse();
      assert.equal((await t.groups.get({ partnerId: p.partner_id, group_id: group })).plan_id, 3);
      assert.equal(user.plan_id, 3, 'the member is on the group plan');
    } finally {
      await t.close();
    }
  });
});
