/** Example feed events, webhooks and deliveries for the OpenAPI document, typed against the contracts. */
import type { FeedPage, PublicEvent, Webhook, WebhookDelivery, WebhookWithSecret } from '@burrow/contracts';

const GB = 1_000_000_000;
const T0 = 1_700_000_000;

export const exampleEvents: PublicEvent[] = [
  {
    id: 'evt_5c1f0e9a7b3d2c4e8f6a1b0d9c8e7f6a',
    position: 1520,
    type: 'user.created',
    time: '2026-11-25T09:14:03.120Z',
    data: {
      username: 'alice',
      name: 'Alice Example',
      email: 'alice@example.com',
      plan_id: 2,
      group_id: 3,
      bonus_bytes: 0,
      avatar_id: 17,
      creation_time: 1795598043,
    },
  },
  {
    id: 'evt_0a9b8c7d6e5f4a3b2c1d0e9f8a7b6c5d',
    position: 1610,
    type: 'user.plan_changed',
    time: '2026-11-25T09:20:11.004Z',
    data: { username: 'alice', plan_id: 3 },
  },
  {
    id: 'evt_7e6d5c4b3a29180f7e6d5c4b3a291801',
    position: 1730,
    type: 'device.registered',
    time: '2026-11-25T09:31:40.518Z',
    data: { username: 'alice', device: 'laptop', sysplatform: 'linux', client_revision: 2 },
  },
  {
    id: 'evt_3b2a19080f1e2d3c4b5a69788796a5b4',
    position: 2990,
    type: 'device.backup_activity',
    time: '2026-11-25T11:01:02.300Z',
    data: {
      username: 'alice',
      device: 'laptop',
      hour_start: '2026-11-25T09:00:00.000Z',
      files_committed: 1204,
      bytes_committed: 3 * GB,
      files_deleted: 12,
      folders_deleted: 1,
      backups_completed: 1,
    },
  },
  {
    id: 'evt_9f8e7d6c5b4a39281706f5e4d3c2b1a0',
    position: 3011,
    type: 'quota.threshold_crossed',
    time: '2026-11-25T11:03:27.911Z',
    data: { username: 'alice', threshold: 80, direction: 'up', bytes_stored: 4100 * GB, storage_bytes: 5000 * GB },
  },
  {
    id: 'evt_1a2b3c4d5e6f708192a3b4c5d6e7f809',
    position: 3140,
    type: 'share_room.created',
    time: '2026-11-25T11:10:00.000Z',
    data: { username: 'alice', room_key: 'k7Pq2mXa', name: 'Holiday photos', description: 'Pictures from the lake' },
  },
  {
    id: 'evt_c0ffee00c0ffee00c0ffee00c0ffee00',
    position: 3200,
    type: 'user.password_changed',
    time: '2026-11-25T11:12:45.000Z',
    data: { username: 'alice' },
  },
];

export const exampleFeedPage: FeedPage = { events: exampleEvents.slice(0, 3), next_after: 1730, has_more: true };

export const exampleWebhook: Webhook = {
  id: '6f1c2a3e-4b5d-4e6f-8a9b-0c1d2e3f4a5b',
  url: 'https://crm.example.com/hooks/burrow',
  event_types: ['user.created', 'user.deleted', 'quota.threshold_crossed'],
  description: 'CRM sync',
  enabled: true,
  disabled_reason: null,
  disabled_at: null,
  created_at: T0,
  failing_since: null,
  last_success_at: T0 + 3600,
  previous_secret_expires_at: null,
};

export const exampleWebhookWithSecret: WebhookWithSecret = {
  ...exampleWebhook,
  last_success_at: null,
  secret: 'whsec_q3mB0n6Jb4XcN1yQ2w8v5rT7pL9kH0dF3sA6gE2uI4o',
};

export const exampleDisabledWebhook: Webhook = {
  ...exampleWebhook,
  enabled: false,
  disabled_reason: 'deliveries failing since 2023-11-11T22:13:20.000Z',
  disabled_at: T0 + 3 * 86_400,
  failing_since: T0,
};

export const exampleDelivery: WebhookDelivery = {
  id: '6f1c2a3e-4b5d-4e6f-8a9b-0c1d2e3f4a5b.1520',
  event_id: 'evt_5c1f0e9a7b3d2c4e8f6a1b0d9c8e7f6a',
  event_type: 'user.created',
  position: 1520,
  status: 'succeeded',
  attempts: 3,
  created_at: T0,
  last_attempt_at: T0 + 95,
  next_attempt_at: null,
  last_status_code: 200,
  last_error: null,
  redelivery_of: null,
  history: [
    { attempt: 1, at: T0, status_code: 500, error: 'HTTP 500' },
    { attempt: 2, at: T0 + 31, status_code: null, error: 'no response within 10000 ms' },
    { attempt: 3, at: T0 + 95, status_code: 200, error: null },
  ],
};

export const examplePendingDelivery: WebhookDelivery = {
  ...exampleDelivery,
  id: '0d7c1b2a-3e4f-4a5b-9c6d-7e8f9a0b1c2d',
  status: 'pending',
  attempts: 0,
  last_attempt_at: null,
  next_attempt_at: T0 + 200,
  last_status_code: null,
  created_at: T0 + 200,
  redelivery_of: exampleDelivery.id,
  history: [],
};
