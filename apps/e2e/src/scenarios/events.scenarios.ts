/**
 * The partner's event feed over HTTP, in both modes: the JSON pages and the Server-Sent Events
 * stream agree (replay from 0 equals what the live stream delivered), a stream resumed with
 * Last-Event-ID (on another gateway where there are several) loses and duplicates nothing, a
 * partner sees nothing of another's, and a webhook URL on 127.0.0.1 is refused by default.
 */
import type { FeedPage, PublicEvent } from '@burrow/contracts';
import assert from 'node:assert/strict';
import { before, it } from 'node:test';
import { createPartner, type PartnerApi, partnerApi } from '../harness/client.js';
import { openSse, type SseFrame } from '../harness/sse.js';
import { assertBadFields, createUser, unique } from './accounts-fixtures.js';
import type { ScenarioContext } from './scenarios.js';

/** The whole feed after `after`, page by page. */
export async function readFeed(api: PartnerApi, after = 0, limit = 50): Promise<PublicEvent[]> {
  const events: PublicEvent[] = [];
  let cursor = after;
  for (;;) {
    const page = (await api.get(`/events/?after=${cursor}&limit=${limit}`).expect(200)).body as FeedPage;
    events.push(...page.events);
    cursor = page.next_after;
    if (!page.has_more) return events;
  }
}

const parsed = (frames: SseFrame[]) =>
  frames.map((f) => {
    const event = JSON.parse(f.data) as PublicEvent;
    assert.equal(f.id, String(event.position), 'the frame id is the position');
    assert.equal(f.event, event.type);
    return event;
  });

export function eventsScenarios({ target }: ScenarioContext) {
  let a: { api: PartnerApi; credentials: { username: string; password: string } };
  let b: { api: PartnerApi; credentials: { username: string; password: string } };

  before(async () => {
    a = await createPartner(target());
    b = await createPartner(target());
  });

  it('replay from 0 equals the live SSE stream', async () => {
    const stream = openSse(`${target().url}/events/?after=0`, a.credentials);
    try {
      assert.equal(await stream.status, 200);
      const user = await createUser(a.api, { username: unique('live') });
      const group = (await a.api.post('/groups/', { name: unique('grp'), plan_id: 1 }).expect(201)).body as {
        group_id: number;
      };
      await a.api.post(`/users/${user.username}`, { name: 'Renamed Live', group_id: group.group_id }).expect(200);
      await a.api.post(`/users/${user.username}`, { enabled: false }).expect(200);
      const replayed = await readFeed(a.api);
      assert.deepEqual(
        replayed.map((e) => e.type),
        ['user.created', 'group.created', 'user.changed', 'user.group_changed', 'user.disabled'],
      );
      const live = parsed(await stream.waitFor(replayed.length));
      assert.deepEqual(live, replayed);
    } finally {
      stream.close();
    }
  });

  it('a stream resumed with Last-Event-ID, on any gateway, loses and duplicates nothing', async () => {
    const urls = target().urls;
    const first = openSse(`${urls[0]}/events/`, a.credentials);
    const before = (await readFeed(a.api)).length;
    let seen: PublicEvent[];
    try {
      seen = parsed(await first.waitFor(before));
    } finally {
      first.close();
    }
    // while disconnected
    const missed = [
      await createUser(a.api, { username: unique('away') }),
      await createUser(a.api, { username: unique('away') }),
    ];
    const second = openSse(`${urls[urls.length - 1]}/events/?after=0`, a.credentials, String(seen.at(-1)!.position));
    try {
      const resumed = parsed(await second.waitFor(2));
      assert.deepEqual(
        resumed.map((e) => (e.data as { username: string }).username),
        missed.map((u) => u.username),
      );
      const late = await createUser(a.api, { username: unique('late') });
      const [live] = parsed((await second.waitFor(3)).slice(2));
      assert.equal((live.data as { username: string }).username, late.username);
      assert.deepEqual([...seen, ...parsed(second.frames)], await readFeed(a.api), 'everything once, in order');
    } finally {
      second.close();
    }
  });

  it("a partner's feed and stream hold nothing of another partner", async () => {
    const theirs = await createUser(b.api, { username: unique('theirs') });
    const ours = (await readFeed(a.api)).map((e) => JSON.stringify(e));
    assert.ok(!ours.some((e) => e.includes(theirs.username)));
    const feedB = await readFeed(b.api);
    assert.deepEqual(
      feedB.map((e) => (e.data as { username: string }).username),
      [theirs.username],
    );
    const stream = openSse(`${target().url}/events/`, b.credentials);
    try {
      const [only] = parsed(await stream.waitFor(1));
      assert.equal((only.data as { username: string }).username, theirs.username);
      await createUser(a.api, { username: unique('notb') });
      const mine = await createUser(b.api, { username: unique('mine') });
      const [next] = parsed((await stream.waitFor(2)).slice(1));
      assert.equal((next.data as { username: string }).username, mine.username, "A's event never reached B's stream");
    } finally {
      stream.close();
    }
    // positions are global: B's next_after moves past A's events without listing them
    const page = (await b.api.get(`/events/?after=${feedB[0].position}`).expect(200)).body as FeedPage;
    assert.ok(page.events.every((e) => !JSON.stringify(e).includes('notb')));
  });

  it('a stream opened with the old password ends on every gateway when the partner password changes, and sends nothing written after the change (issue 33, item 9)', async () => {
    const p = await createPartner(target());
    const streams = target().urls.map((url) => openSse(`${url}/events/`, p.credentials));
    try {
      for (const stream of streams) assert.equal(await stream.status, 200);
      const before = await createUser(p.api, { username: unique('before') });
      for (const stream of streams) await stream.waitFor(1);
      const next = { username: p.credentials.username, password: 'changed-password-9' };
      await p.api.post('/partner/password', next.password).expect(200);
      const after = await createUser(partnerApi(target(), target().url, next), { username: unique('after') });
      for (const [i, stream] of streams.entries()) {
        await Promise.race([
          stream.ended,
          new Promise((_, reject) =>
            setTimeout(() => reject(new Error(`gateway ${i}: the stream did not end`)), 15_000),
          ),
        ]);
        assert.deepEqual(
          parsed(stream.frames).map((e) => e.type),
          ['user.created'],
          `gateway ${i}: nothing after the change`,
        );
        assert.equal(
          stream.frames[0] && (JSON.parse(stream.frames[0].data) as PublicEvent<'user.created'>).data.username,
          before.username,
        );
        assert.ok(
          stream.comments.some((c) => /password has changed/.test(c)),
          `gateway ${i}: says why it ended`,
        );
      }
      // a stream opened with the new password reads on, the change included
      const renewed = openSse(`${target().url}/events/?after=0`, next);
      try {
        assert.deepEqual(
          parsed(await renewed.waitFor(3)).map((e) => e.type),
          ['user.created', 'partner.password_changed', 'user.created'],
        );
        assert.equal((JSON.parse(renewed.frames[2].data) as PublicEvent<'user.created'>).data.username, after.username);
      } finally {
        renewed.close();
      }
      // the old password opens nothing any more
      const refused = openSse(`${target().url}/events/`, p.credentials);
      assert.equal(await refused.status, 401);
      refused.close();
    } finally {
      for (const stream of streams) stream.close();
    }
  });

  it('pages are stable and the feed is also under /apis/accounts/v1/', async () => {
    const whole = await readFeed(a.api);
    const paged = await readFeed(a.api, 0, 2);
    assert.deepEqual(paged, whole);
    const mounted = (await a.api.get('/apis/accounts/v1/events/?after=0&limit=1000').expect(200)).body as FeedPage;
    assert.deepEqual(mounted.events, whole);
    assert.deepEqual((await a.api.get(`/events/?after=${whole[1].position}&limit=1`).expect(200)).body.events, [
      whole[2],
    ]);
  });

  it('bad paging input is a 400 naming it; no credentials is a 401', async () => {
    assertBadFields(await a.api.get('/events/?limit=0'), ['limit']);
    assertBadFields(await a.api.get('/events/?after=-1'), ['after']);
    assertBadFields(await a.api.get('/events/?limit=1001'), ['limit']);
    const res = await a.api.raw
      .get('/events/')
      .set('Accept', 'text/event-stream')
      .set('Last-Event-ID', 'abc')
      .auth(a.credentials.username, a.credentials.password);
    assertBadFields(res, ['Last-Event-ID']);
    assert.equal((await a.api.raw.get('/events/')).status, 401);
  });

  it('a webhook URL pointing at 127.0.0.1 (or any private address) is refused by default, and so is http', async () => {
    for (const url of [
      'https://127.0.0.1/hook',
      'https://127.0.0.1:8443/hook',
      'https://[::1]/hook',
      'https://10.1.2.3/hook',
      'https://169.254.169.254/latest',
      'https://localhost/hook',
      'http://example.com/hook',
    ]) {
      const res = await a.api.post('/webhooks/', { url, event_types: ['*'] });
      assertBadFields(res, ['url']);
    }
    assert.deepEqual((await a.api.get('/webhooks/').expect(200)).body, []);
  });
}
