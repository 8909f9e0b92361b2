/**
 * What a gateway remembers of logins accounts confirmed (session-memo.ts): never a refusal, never
 * past its lifetime, never what a forget named, never a check that was under way when a forget
 * came, and a forget is acknowledged on the bus as this replica.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  type AuthenticatedUser,
  SESSION_FORGET_SUBJECT,
  SESSION_FORGOTTEN_SUBJECT,
  unauthorized,
} from '@burrow/contracts';
import type { Broadcasts } from '@burrow/runtime';
import { SessionForgets } from '@burrow/runtime';
import { SessionMemo } from './session-memo.js';

const user = (userId: string): AuthenticatedUser => ({
  userId,
  partnerId: 'p1',
  username: userId,
  email: `${userId}@example.com`,
  name: userId,
  enabled: true,
  webapi_enable: true,
  sessionStamp: 'st',
  sharing_enabled: true,
  share_link_ttl: 60,
});

function memo(ttlMs = 1000) {
  let clock = 1_000_000;
  const m = new SessionMemo({ ttlMs, now: () => clock });
  m.activate(0);
  return { m, advance: (ms: number) => (clock += ms) };
}

/** A check that counts its calls. */
function counting(result: () => AuthenticatedUser) {
  let calls = 0;
  return { check: async () => (calls++, result()), calls: () => calls };
}

/** Broadcasts within this process, delivered at once (as the in-process bus does). */
function localBroadcasts(): Broadcasts {
  const subscribers = new Map<string, Set<(data: unknown) => void>>();
  return {
    publish: (subject, data) => subscribers.get(subject)?.forEach((s) => s(JSON.parse(JSON.stringify(data)))),
    subscribe: (subject, on) => {
      const set = subscribers.get(subject) ?? new Set();
      subscribers.set(subject, set.add(on));
      return () => set.delete(on);
    },
  };
}

describe('session memo', () => {
  it('remembers a confirmed session for its lifetime, then asks again', async () => {
    const { m, advance } = memo();
    const c = counting(() => user('u1'));
    await m.session({ sid: 's1', userId: 'u1', stamp: 'st' }, c.check);
    await m.session({ sid: 's1', userId: 'u1', stamp: 'st' }, c.check);
    assert.equal(c.calls(), 1);
    // another stamp (a cookie made before a password change) is another check
    await m.session({ sid: 's1', userId: 'u1', stamp: 'old' }, c.check);
    assert.equal(c.calls(), 2);
    advance(1001);
    await m.session({ sid: 's1', userId: 'u1', stamp: 'st' }, c.check);
    assert.equal(c.calls(), 3);
  });

  it('never remembers a refusal: every wrong password reaches accounts (and its throttle)', async () => {
    const { m } = memo();
    let calls = 0;
    const refuse = async (): Promise<AuthenticatedUser> => {
      calls++;
      throw unauthorized('invalid username or password');
    };
    for (let i = 0; i < 3; i++) await assert.rejects(m.basic('alice', 'wrong', '10.0.0.1', refuse));
    assert.equal(calls, 3);
    assert.equal(m.size, 0);
  });

  it('a Basic login is remembered per (login, password, address), under a keyed hash, never the password', async () => {
    const { m } = memo();
    const c = counting(() => user('u1'));
    await m.basic('alice', 'secret-password', '10.0.0.1', c.check);
    await m.basic('alice', 'secret-password', '10.0.0.1', c.check);
    assert.equal(c.calls(), 1);
    await m.basic('alice', 'secret-password', '10.0.0.2', c.check);
    await m.basic('alice', 'other-password', '10.0.0.1', c.check);
    assert.equal(c.calls(), 3, 'another address or password is checked by accounts');
    const kept = JSON.stringify([...(m as unknown as { entries: Map<string, unknown> }).entries.keys()]);
    assert.ok(
      !kept.includes('secret-password') && !kept.includes('alice'),
      'neither the password nor the login in the keys',
    );
  });

  it('forgets users, sessions or everything; a check under way when a forget comes is not remembered', async () => {
    const { m } = memo();
    const c = counting(() => user('u1'));
    const d = counting(() => user('u2'));
    await m.session({ sid: 's1', userId: 'u1', stamp: 'st' }, c.check);
    await m.basic('bob', 'pw', 'a', d.check);
    m.forget({ users: ['u1'] });
    await m.session({ sid: 's1', userId: 'u1', stamp: 'st' }, c.check);
    await m.basic('bob', 'pw', 'a', d.check);
    assert.deepEqual([c.calls(), d.calls()], [2, 1]);
    m.forget({ sessions: ['s1'] });
    await m.session({ sid: 's1', userId: 'u1', stamp: 'st' }, c.check);
    assert.equal(c.calls(), 3);
    m.forget({ all: true });
    assert.equal(m.size, 0);
    // a check that began before a forget may have read what the write changed
    let release!: () => void;
    const slow = m.session(
      { sid: 's2', userId: 'u1', stamp: 'st' },
      () => new Promise<AuthenticatedUser>((resolve) => (release = () => resolve(user('u1')))),
    );
    m.forget({ users: ['u9'] });
    release();
    await slow;
    assert.equal(m.size, 0);
  });

  it('remembers nothing before it is active', async () => {
    const m = new SessionMemo({ ttlMs: 1000 });
    const c = counting(() => user('u1'));
    await m.session({ userId: 'u1', stamp: 'st' }, c.check);
    await m.session({ userId: 'u1', stamp: 'st' }, c.check);
    assert.equal(c.calls(), 2);
  });

  it('a write waits for every gateway replica that reports to acknowledge its forget, and no longer than its wait for one that does not', async () => {
    const bus = localBroadcasts();
    const a = memo();
    const b = memo();
    a.m.listen(bus, 'gw-a');
    b.m.listen(bus, 'gw-b');
    const c = counting(() => user('u1'));
    await b.m.session({ sid: 's1', userId: 'u1', stamp: 'st' }, c.check);
    const view = (replica: string) => ({ replica, ok: true, position: 0, last_seen_ms: 0, stale: false });
    const forgets = new SessionForgets(bus, { snapshot: () => ({ gateway: [view('gw-a'), view('gw-b')] }) }, 5000);
    assert.deepEqual(await forgets.forget({ users: ['u1'] }), [], 'both acknowledged');
    assert.equal(b.m.size, 0);
    const silent = new SessionForgets(bus, { snapshot: () => ({ gateway: [view('gw-a'), view('gw-gone')] }) }, 20);
    assert.deepEqual(await silent.forget({ all: true }), ['gw-gone']);
    let heard = 0;
    bus.subscribe(SESSION_FORGOTTEN_SUBJECT, () => heard++);
    bus.publish(SESSION_FORGET_SUBJECT, { id: 'x', sessions: ['s9'] });
    assert.equal(heard, 2);
    forgets.close();
    silent.close();
  });
});
