/**
 * Bulk paging of the user list as bulk clients do it (1000 at a time with offset): stable,
 * complete, ordered, and in agreement with `?action=user_count`. The users are created over HTTP
 * (one scrypt hash each), so the size is a parameter: all-scenarios.ts runs 1,250 in standalone
 * mode and fewer where creating them takes too long.
 */
import type { UserRecord } from '@burrow/contracts';
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { createPartner, partnerApi } from '../harness/client.js';
import { assertUserRecord, mapLimit } from './accounts-fixtures.js';
import type { ScenarioContext } from './scenarios.js';

export interface PaginationOptions {
  users: number;
  pageSize: number;
}

export function paginationScenarios({ target }: ScenarioContext, { users, pageSize }: PaginationOptions) {
  it(`paging ${users.toLocaleString('en-US')} users with limit=${pageSize} and offset is stable, complete and ordered; user_count agrees`, async () => {
    const { api: p, credentials } = await createPartner(target());
    // spread the creates over every gateway, 8 in flight
    const gateways = target().urls.map((url) => partnerApi(target(), url, credentials));
    const width = String(users).length;
    const usernames = Array.from(
      { length: users },
      (_, i) => `pg${String(i).padStart(width, '0')}x${Math.random().toString(36).slice(2, 6)}`,
    );
    await mapLimit(usernames, 8, async (username, i) => {
      const res = await gateways[i % gateways.length].post('/users/', {
        username,
        name: `Page ${i}`,
        email: `${username}@example.com`,
        password: 'page-password-1',
      });
      assert.equal(res.status, 201, `${username}: ${res.status} ${res.text}`);
    });

    assert.deepEqual((await p.get('/users/?action=user_count').expect(200)).body, { user_count: users });
    const pages = Math.ceil(users / pageSize);
    const seen: string[] = [];
    for (let page = 0; page < pages; page++) {
      // clients never send offset=0: the first page has no offset
      const query = page === 0 ? `limit=${pageSize}` : `limit=${pageSize}&offset=${page * pageSize}`;
      const body = (await gateways[page % gateways.length].get(`/users/?${query}`).expect(200)).body as UserRecord[];
      assert.equal(body.length, Math.min(pageSize, users - page * pageSize), `page ${page}`);
      if (page === 0) assertUserRecord(body[0]);
      seen.push(...body.map((u) => u.username));
    }
    assert.deepEqual((await p.get(`/users/?limit=${pageSize}&offset=${pages * pageSize}`).expect(200)).body, []);
    assert.equal(new Set(seen).size, seen.length, 'no user appears twice');
    assert.deepEqual(seen, [...usernames].sort(), 'every user appears, in username order');

    // descending order pages the same set backwards
    const desc: string[] = [];
    for (let page = 0; page < pages; page++) {
      const query =
        page === 0
          ? `order_by=-username&limit=${pageSize}`
          : `order_by=-username&limit=${pageSize}&offset=${page * pageSize}`;
      desc.push(...((await p.get(`/users/?${query}`).expect(200)).body as UserRecord[]).map((u) => u.username));
    }
    assert.deepEqual(desc, [...seen].reverse());

    // a sort key with ties (creation_time) still pages without duplicates or gaps
    const byTime: string[] = [];
    for (let page = 0; page < pages; page++) {
      const query =
        page === 0
          ? `order_by=creation_time&limit=${pageSize}`
          : `order_by=creation_time&limit=${pageSize}&offset=${page * pageSize}`;
      byTime.push(...((await p.get(`/users/?${query}`).expect(200)).body as UserRecord[]).map((u) => u.username));
    }
    assert.deepEqual([...byTime].sort(), seen);
    assert.equal(new Set(byTime).size, users);
  });
}
