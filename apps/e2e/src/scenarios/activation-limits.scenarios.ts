/**
 * Activation emails (issue 18, item 6): at most BURROW_ACTIVATION_MAIL_PER_USER to one user and
 * BURROW_ACTIVATION_MAIL_PER_PARTNER per partner within the window, past which a 429 with a reason
 * and Retry-After; the `.eml` mail folder is pruned of files older than
 * BURROW_MAIL_OUTBOX_MAX_AGE_DAYS; and a deleted user can neither register a device nor be mailed.
 */
import assert from 'node:assert/strict';
import { mkdir, readdir, utimes, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { it } from 'node:test';
import { createPartner, partnerApi } from '../harness/client.js';
import { storageApi } from '../harness/storage-client.js';
import { createUser } from './accounts-fixtures.js';
import type { ScenarioContext } from './scenarios.js';

export const ACTIVATION_LIMITS_ENV = {
  BURROW_ACTIVATION_MAIL_PER_USER: '2',
  BURROW_ACTIVATION_MAIL_PER_PARTNER: '3',
  BURROW_MAIL_OUTBOX_MAX_AGE_DAYS: '30',
};

export function activationLimitsScenarios({ target }: ScenarioContext) {
  const send = (p: ReturnType<typeof partnerApi>, username: string) =>
    p.post(`/users/${username}?action=sendactivationemail`);

  // first in this target: the mailer prunes on the first send of its process
  it('the mail folder loses .eml files older than the configured age when mail is sent; newer ones stay', async () => {
    const folder = join(target().dataDir, 'mail');
    await mkdir(folder, { recursive: true, mode: 0o700 });
    const old = join(folder, '20000101T000000.000Z-000001-deadbeef.eml');
    const recent = join(folder, '20000101T000000.000Z-000002-deadbeef.eml');
    await writeFile(old, 'old', { mode: 0o600 });
    await writeFile(recent, 'recent', { mode: 0o600 });
    const fortyDaysAgo = new Date(Date.now() - 40 * 86_400_000);
    await utimes(old, fortyDaysAgo, fortyDaysAgo);
    const { api: p } = await createPartner(target());
    const u = await createUser(p, { password: undefined });
    await send(p, u.username).expect(200);
    const names = await readdir(folder);
    assert.ok(!names.includes('20000101T000000.000Z-000001-deadbeef.eml'), 'the 40-day-old file was removed');
    assert.ok(names.includes('20000101T000000.000Z-000002-deadbeef.eml'), 'a recent file stays');
    assert.ok(
      names.some((n) => !n.startsWith('2000')),
      'the new mail is there',
    );
  });

  it('one user is mailed at most the per-user limit, then 429 with a reason and Retry-After; another user still is', async () => {
    const { api: p } = await createPartner(target());
    const a = await createUser(p, { password: undefined });
    const b = await createUser(p, { password: undefined });
    await send(p, a.username).expect(200);
    await send(p, a.username).expect(200);
    const refused = await send(p, a.username);
    assert.equal(refused.status, 429, refused.text);
    assert.match(refused.body.reason, /activation emails to this user/);
    assert.ok(Number(refused.headers['retry-after']) >= 1);
    await send(p, b.username).expect(200);
  });

  it('one partner sends at most the per-partner limit, then 429 naming the partner limit; other partners are not held', async () => {
    const { api: p } = await createPartner(target());
    const users = [];
    for (let i = 0; i < 4; i++) users.push(await createUser(p, { password: undefined }));
    for (let i = 0; i < 3; i++) await send(p, users[i].username).expect(200);
    const refused = await send(p, users[3].username);
    assert.equal(refused.status, 429, refused.text);
    assert.match(refused.body.reason, /activation emails for this partner/);
    const { api: other } = await createPartner(target());
    const o = await createUser(other, { password: undefined });
    await send(other, o.username).expect(200);
  });

  it('a deleted user can neither register a device nor be mailed', async () => {
    const api = partnerApi(target());
    const u = await createUser(api, { password: 'user-password-1' });
    const storage = storageApi(target(), u.username, 'user-password-1');
    await storage.putDevice('laptop').expect(200);
    await api.delete(`/users/${u.username}`).expect(200);
    const res = await storage.putDevice('phone');
    assert.equal(res.status, 401, res.text);
    assert.equal((await send(api, u.username)).status, 404);
  });
}
