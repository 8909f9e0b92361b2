/**
 * The public mapping never leaks: every mapping function gets an internal event whose secret and
 * internal fields (password hashes, nonces, tokens, card data, internal ids) hold canary values,
 * plus fields a future version of the event might add; its output must parse with the type's
 * strict public schema and contain no canary. A mapping function without a sample here fails.
 */
import { PUBLIC_EVENT_PAYLOADS, QUOTA_THRESHOLDS } from '@burrow/contracts';
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  activityOf,
  activitySummary,
  deviceEvents,
  type Draft,
  groupEvents,
  partnerEvents,
  quotaCrossing,
  shareEvents,
  userEvents,
} from './public-events.js';
import { crossings, quotaLevel } from './quota-thresholds.js';

const CANARY = 'SECRET';
/** What an internal event may carry that a partner must never see, and what a later version may add. */
const internals = {
  userId: `${CANARY}-user-id`,
  partnerId: `${CANARY}-partner-id`,
  deviceId: `${CANARY}-device-id`,
  passwordHash: `scrypt$${CANARY}-hash`,
  nonce: `${CANARY}-nonce`,
  token: `${CANARY}-token`,
  card: { number: `${CANARY}-4111111111111111`, cvc: `${CANARY}-123` },
  blob: `${CANARY}-sha256`,
};
const subject = { username: 'alice', device: 'laptop' };

const samples: Record<string, Record<string, Record<string, unknown>>> = {
  userEvents: {
    UserCreated: {
      username: 'alice',
      name: 'Alice',
      email: 'a@example.com',
      plan_id: 1,
      group_id: null,
      bonus_bytes: 0,
      avatar_id: 3,
      share_id: `${CANARY}-share`,
      creation_time: 1,
    },
    UserRenamed: { name: 'Alice B' },
    UserEmailChanged: { email: 'b@example.com' },
    UserBonusChanged: { bonus_bytes: 5 },
    UserPurgeHoldChanged: { purgehold_active: true },
    UserPlanChanged: { plan_id: 2 },
    UserGroupChanged: { group_id: 4 },
    UserEnabled: {},
    UserDisabled: {},
    UserDeleted: { deletedAt: 2 },
    UserPasswordChanged: {},
  },
  groupEvents: {
    GroupCreated: {
      groupId: 3,
      name: 'Eng',
      plan_id: 1,
      webapi_enable: true,
      check_domain: false,
      device_policy: null,
    },
    GroupRenamed: { name: 'Engineering' },
    GroupPolicyChanged: { webapi_enable: false, check_domain: true },
    GroupDevicePolicyChanged: { device_policy: 2 },
    GroupPlanChanged: { plan_id: 2 },
    GroupDeleted: { move_to: null },
  },
  deviceEvents: {
    DeviceRegistered: { name: 'laptop', sysplatform: 'linux', client_revision: 2, at: 1 },
    DeviceRemoved: { at: 2 },
  },
  shareEvents: {
    ShareRoomCreated: {
      room_key: 'k1',
      name: 'Photos',
      description: 'lake',
      dirs: [`laptop/${CANARY}-private-folder/`],
      at: 1,
    },
    ShareRoomUpdated: { room_key: 'k1', name: 'Pics', dirs: [`laptop/${CANARY}-private-folder/`], at: 2 },
    ShareRoomEnabled: { room_key: 'k1', at: 3 },
    ShareRoomDisabled: { room_key: 'k1', at: 4 },
    ShareRoomDeleted: { room_key: 'k1', at: 5 },
    ShareRoomPasswordSet: { room_key: 'k1', password_hash: `scrypt2$${CANARY}-room-hash`, at: 6 },
    ShareRoomAccessed: { room_key: 'k1', downloads: 3, at: 7 },
  },
  partnerEvents: {
    PartnerPasswordChanged: { at: 1 },
  },
};
const tables: Record<string, Record<string, (data: never, who: never) => Draft | null>> = {
  userEvents,
  groupEvents,
  deviceEvents,
  shareEvents,
  partnerEvents,
};

function assertPublic(draft: Draft | null, where: string): void {
  assert.ok(draft, `${where} made no event`);
  const schema = PUBLIC_EVENT_PAYLOADS[draft.type];
  assert.ok(schema, `${where}: ${draft.type} is no public type`);
  const parsed = schema.safeParse(draft.data);
  assert.ok(parsed.success, `${where}: ${JSON.stringify(parsed.error?.issues)}`);
  assert.ok(!JSON.stringify(draft).includes(CANARY), `${where} leaks: ${JSON.stringify(draft)}`);
}

describe('public event mapping', () => {
  for (const [table, mappers] of Object.entries(tables)) {
    for (const [type, map] of Object.entries(mappers)) {
      it(`${type} becomes a public event with only public fields`, () => {
        const sample = samples[table]?.[type];
        assert.ok(sample, `no sample for ${table}.${type}: add one`);
        const who = table === 'groupEvents' ? 3 : subject;
        assertPublic(map({ ...internals, ...sample } as never, who as never), type);
      });
    }
  }

  it('the self-check sees a leak and an extra field', () => {
    const leaky = {
      type: 'user.created',
      data: {
        ...userEvents.UserCreated(samples.userEvents.UserCreated as never).data,
        passwordHash: internals.passwordHash,
      },
    } as Draft;
    assert.throws(() => assertPublic(leaky, 'leaky'));
    const sneaky = { type: 'user.deleted', data: { username: `${CANARY}-x` } } as Draft;
    assert.throws(() => assertPublic(sneaky, 'sneaky'));
  });

  it('a share room change of its folders alone is no public event', () => {
    assert.equal(shareEvents.ShareRoomUpdated({ room_key: 'k1', dirs: ['laptop/x/'], at: 1 }, subject), null);
  });

  it('hour summaries and quota crossings carry only counts and names', () => {
    assertPublic(
      activitySummary(subject, Date.UTC(2026, 0, 1, 9), {
        files_committed: 2,
        bytes_committed: 10,
        files_deleted: 1,
        folders_deleted: 0,
        backups_completed: 1,
      }),
      'summary',
    );
    assertPublic(quotaCrossing(subject, { threshold: 90, direction: 'up' }, 95, 100), 'quota');
    assert.deepEqual(activityOf('FileVersionCommitted', { ...internals, size: 7 }), {
      files_committed: 1,
      bytes_committed: 7,
    });
    assert.equal(activityOf('DeviceLoggedIn', internals as never), null);
  });
});

describe('quota thresholds', () => {
  it('the level is the highest threshold reached', () => {
    assert.equal(quotaLevel(79, 100), 0);
    assert.equal(quotaLevel(80, 100), 80);
    assert.equal(quotaLevel(99, 100), 90);
    assert.equal(quotaLevel(150, 100), 100);
    assert.equal(quotaLevel(0, 0), 0);
    assert.equal(quotaLevel(1, 0), 100);
    assert.equal(quotaLevel(10 ** 18, 1000000001000000000), 0, 'unlimited has no thresholds');
  });

  it('a jump reports every threshold crossed, in the order crossed, either way', () => {
    const up = (...t: number[]) => t.map((threshold) => ({ threshold, direction: 'up' }));
    const down = (...t: number[]) => t.map((threshold) => ({ threshold, direction: 'down' }));
    assert.deepEqual(crossings(0, 90), up(80, 90), '60% to 90% in one upload: 80 then 90');
    assert.deepEqual(crossings(0, 100), up(80, 90, 100));
    assert.deepEqual(crossings(80, 100), up(90, 100));
    assert.deepEqual(crossings(100, 80), down(100, 90), 'fell under 100 then 90');
    assert.deepEqual(crossings(90, 0), down(90, 80));
    assert.deepEqual(crossings(100, 0), down(100, 90, 80));
    assert.deepEqual(crossings(80, 80), []);
    for (const t of QUOTA_THRESHOLDS) assert.deepEqual(crossings(t === 80 ? 0 : ((t - 10) as 80 | 90), t), up(t));
  });
});
