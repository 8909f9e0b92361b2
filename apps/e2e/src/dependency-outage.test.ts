/**
 * Issue 39, defect 1, on the production servers (multi-process on NATS, the PostgreSQL event store,
 * MinIO and FerretDB when the run has them): the event store and the blob store go away under the
 * services (a TCP proxy between them and the server drops every connection and refuses new ones)
 * and come back.
 *
 * While the event store is down, reads go on from the read models and the blobs: interface A
 * reads (the partner's quota included), storage listings, downloads, zips, cookie sessions, share rooms; logins are checked
 * against the read models. Writes answer 503 with Retry-After and a reason naming the event store.
 * Readiness stays 200, listing what is degraded. While the blob store is down, transfers answer
 * 503 naming it. No answer is ever a 500, and everything works again once the server is back.
 *
 * Which requests kept working is printed as a diagnostic (the closing note quotes it).
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { describe, it } from 'node:test';
import { createPostgresDatabase, dropPostgresDatabase } from '@burrow/event-store';
import supertest from 'supertest';
import { partnerApi } from './harness/client.js';
import { natsUrlForTests, startMultiProcess } from './harness/multi-process.js';
import { eventually } from './scenarios/accounts-fixtures.js';
import { storageApi } from './harness/storage-client.js';
import { startTcpProxy } from './harness/tcp-proxy.js';
import { createShareRoom, roomAddress } from './scenarios/share-fixtures.js';

const natsUrl = natsUrlForTests();
const postgresUrl = process.env.POSTGRES_URL;
const minioUrl = process.env.MINIO_URL;
const skip = !natsUrl
  ? 'NATS_URL not set and no nats-server found'
  : !postgresUrl
    ? 'POSTGRES_URL not set and no PostgreSQL server on 127.0.0.1:5432'
    : false;
const PASSWORD = 'outage-password-1';

const hostPort = (url: string) => {
  const u = new URL(url);
  return { host: u.hostname, port: Number(u.port) };
};

type Answer = { status: number; headers: Record<string, unknown>; body: unknown; text: string };

describe(
  'dependency outages on the production servers (multi-process, PostgreSQL event store)',
  { skip, timeout: 300_000 },
  () => {
    it('event store down: reads go on, writes answer 503 naming it with Retry-After, readiness degraded; blob store down: 503 naming it; never a 500', async (t) => {
      const database = `burrow_e2e_${randomBytes(6).toString('hex')}`;
      const direct = await createPostgresDatabase(postgresUrl!, database);
      const pg = await startTcpProxy(hostPort(direct));
      const minio = minioUrl ? await startTcpProxy(hostPort(minioUrl)) : null;
      const target = await startMultiProcess(natsUrl!, {
        EVENTSTORE_URL: pg.via(direct),
        ...(minio ? { MINIO_URL: minio.via(minioUrl!) } : {}),
        LOG_LEVEL: 'warn',
      });
      const statuses: { request: string; status: number }[] = [];
      try {
        const api = partnerApi(target);
        const agent = supertest(target.url);
        await api
          .post('/users/', {
            name: 'Reader',
            email: 'reader@example.com',
            username: 'reader',
            password: PASSWORD,
            plan_id: 1,
          })
          .expect(201);
        const reader = storageApi(target, 'reader', PASSWORD);
        await reader.putDevice('laptop').expect(200);
        await reader.putFile('laptop', 'Docs/a.txt', 'first file').expect(201);
        await reader.putFile('laptop', 'Docs/b.txt', 'second file').expect(201);
        const room = await createShareRoom(reader, { room_key: 'outage', dirs: ['laptop/'] });
        // the room's own address (its link, `url`, redirects there)
        const roomUrl = roomAddress(room.url);
        const login = await agent.post(`${reader.root}/login`).type('form').send({ password: PASSWORD }).expect(200);
        const cookie = (login.headers['set-cookie'] as unknown as string[])[0].split(';')[0];
        const auth = (r: supertest.Test) => r.auth('reader', PASSWORD).timeout(30_000);
        const propfind = (path: string) =>
          (agent as unknown as Record<string, (url: string) => supertest.Test>).propfind(path);

        const quota = (await api.get('/partner/quota').expect(200)).body as { bytes_allocated: number };
        assert.ok(quota.bytes_allocated > 0, JSON.stringify(quota));
        const reads: [string, () => supertest.Test, (res: Answer) => void][] = [
          [
            'interface A: GET /partner/quota',
            () => api.get('/partner/quota'),
            (res) => assert.deepEqual(res.body, quota),
          ],
          ['interface A: GET /ping', () => api.get('/ping'), () => undefined],
          [
            'interface A: GET /users/',
            () => api.get('/users/'),
            (res) => assert.ok((res.body as { username: string }[]).some((u) => u.username === 'reader')),
          ],
          [
            'interface A: GET /users/reader',
            () => api.get('/users/reader'),
            (res) => assert.equal((res.body as { username: string }).username, 'reader'),
          ],
          ['interface A: GET /users/?action=user_count', () => api.get('/users/?action=user_count'), () => undefined],
          ['interface A: GET /plans', () => api.get('/plans'), () => undefined],
          ['interface A: GET /groups/', () => api.get('/groups/'), () => undefined],
          ['interface A: GET /shares/', () => api.get('/shares/'), () => undefined],
          ['interface A: GET /partner/info', () => api.get('/partner/info'), () => undefined],
          ['interface A: GET /partner/settings', () => api.get('/partner/settings'), () => undefined],
          ['storage (Basic): the root', () => auth(agent.get(`${reader.root}/`)), () => undefined],
          ['storage (Basic): a folder listing', () => auth(agent.get(`${reader.root}/laptop/Docs/`)), () => undefined],
          [
            'storage (Basic): a download',
            () => auth(agent.get(`${reader.root}/laptop/Docs/a.txt`)).buffer(true),
            (res) => assert.equal(res.text, 'first file'),
          ],
          [
            'storage (Basic): a folder as a zip',
            () => auth(agent.get(`${reader.root}/laptop/Docs/?format=zip`)),
            () => undefined,
          ],
          [
            'storage (cookie session): a download',
            () => agent.get(`${reader.root}/laptop/Docs/b.txt`).set('Cookie', cookie).buffer(true).timeout(30_000),
            (res) => assert.equal(res.text, 'second file'),
          ],
          [
            'storage: a new cookie login',
            () => agent.post(`${reader.root}/login`).type('form').send({ password: PASSWORD }).timeout(30_000),
            () => undefined,
          ],
          [
            'WebDAV: a download',
            () => auth(agent.get('/dav/reader/laptop/Docs/a.txt')).buffer(true),
            (res) => assert.equal(res.text, 'first file'),
          ],
          [
            'WebDAV: PROPFIND of a folder',
            () => auth(propfind('/dav/reader/laptop/Docs/').set('Depth', '1')),
            () => undefined,
          ],
          ['share room: the room', () => agent.get(roomUrl).timeout(30_000), () => undefined],
          ['share room: a folder listing', () => agent.get(`${roomUrl}laptop/Docs/`).timeout(30_000), () => undefined],
          [
            'share room: a download',
            () => agent.get(`${roomUrl}laptop/Docs/a.txt`).buffer(true).timeout(30_000),
            (res) => assert.equal(res.text, 'first file'),
          ],
          ['share room: the room as a zip', () => agent.get(`${roomUrl}?format=zip`).timeout(30_000), () => undefined],
        ];
        const record = async (request: string, send: () => supertest.Test): Promise<Answer> => {
          const res = (await send()) as unknown as Answer;
          statuses.push({ request, status: res.status });
          assert.notEqual(res.status, 500, `${request}: 500 ${res.text}`);
          return res;
        };
        // every read answers before the outage (the baseline of what must keep working)
        const ok = (status: number) => status === 200 || status === 207;
        for (const [request, send] of reads) assert.ok(ok((await send()).status), `${request} before the outage`);
        const wrongPassword = await agent.get(`${reader.root}/`).auth('reader', 'not-the-password').timeout(30_000);
        assert.equal(wrongPassword.status, 401);

        // ---- the event store goes away
        await pg.cut();
        await eventually(
          async () => {
            const res = await api
              .post('/users/', {
                name: 'Writer',
                email: 'writer@example.com',
                username: 'writer',
                password: PASSWORD,
                plan_id: 1,
              })
              .timeout(30_000);
            assert.ok(res.status === 503, `a write to find the event store down: ${res.status} ${res.text}`);
          },
          60_000,
          200,
        );
        const kept: string[] = [];
        const failed: string[] = [];
        for (const [request, send, check] of reads) {
          const res = await record(`event store down: ${request}`, send);
          if (ok(res.status)) {
            check(res);
            kept.push(request);
          } else failed.push(`${request}: ${res.status} ${res.text.slice(0, 200)}`);
        }
        t.diagnostic(`event store down, kept working (${kept.length} of ${reads.length}): ${kept.join('; ')}`);
        if (failed.length) t.diagnostic(`event store down, did not: ${failed.join('; ')}`);
        assert.deepEqual(failed, [], 'every read keeps working while the event store is down');
        // a login is still checked: a wrong password is refused, not let through
        assert.equal(
          (
            await record('event store down: a wrong password', () =>
              agent.get(`${reader.root}/`).auth('reader', 'not-the-password').timeout(30_000),
            )
          ).status,
          401,
        );

        const writes: [string, () => supertest.Test][] = [
          [
            'interface A: POST /users/ (create)',
            () =>
              api.post('/users/', {
                name: 'Writer',
                email: 'writer@example.com',
                username: 'writer',
                password: PASSWORD,
                plan_id: 1,
              }),
          ],
          ['interface A: POST /users/reader (change)', () => api.post('/users/reader', { name: 'Reader Renamed' })],
          ['storage: an upload', () => reader.putFile('laptop', 'Docs/c.txt', 'third file')],
          [
            'storage: a share room',
            () => reader.createShare({ room_name: 'New', room_key: 'new', dirs: ['laptop/Docs/'] }),
          ],
        ];
        for (const [request, send] of writes) {
          const res = await record(`event store down: ${request}`, () => send().timeout(30_000));
          assert.equal(res.status, 503, `${request}: ${res.status} ${res.text}`);
          assert.ok(
            Number(res.headers['retry-after']) > 0,
            `${request}: Retry-After ${String(res.headers['retry-after'])}`,
          );
          assert.equal((res.body as { dependency?: string }).dependency, 'event store', `${request}: ${res.text}`);
          assert.match((res.body as { reason: string }).reason, /event store/);
        }
        const ready = await record('event store down: /readyz', () => agent.get('/readyz').timeout(30_000));
        assert.equal(ready.status, 200, `readiness stays: reads are served (${ready.text})`);
        const readiness = ready.body as { degraded: string[]; checks: Record<string, string> };
        assert.ok(
          readiness.degraded.includes('accounts') && readiness.degraded.includes('storage-catalog'),
          ready.text,
        );
        assert.match(readiness.checks.accounts, /^degraded: event store/);

        // ---- back: writes work again, by themselves
        await pg.restore();
        await eventually(
          async () => {
            const res = await api.post('/users/', {
              name: 'Writer',
              email: 'writer@example.com',
              username: 'writer',
              password: PASSWORD,
              plan_id: 1,
            });
            if (res.status === 500) throw new Error(`500 ${res.text}`);
            assert.ok(
              res.status === 201 || res.status === 409,
              `a write to succeed once the event store is back: ${res.status} ${res.text}`,
            );
          },
          60_000,
          200,
        );
        await eventually(
          async () => {
            const res = await reader.putFile('laptop', 'Docs/c.txt', 'third file');
            assert.ok(res.status === 201, `an upload to succeed: ${res.status} ${res.text}`);
          },
          60_000,
          200,
        );

        if (minio) {
          // ---- the blob store goes away: transfers answer 503 naming it
          await minio.cut();
          const transfers: [string, () => supertest.Test][] = [
            ['storage: an upload', () => reader.putFile('laptop', 'Docs/d.txt', 'fourth file')],
            ['storage: a download', () => auth(agent.get(`${reader.root}/laptop/Docs/a.txt`))],
            ['share room: a download', () => agent.get(`${roomUrl}laptop/Docs/b.txt`)],
          ];
          for (const [request, send] of transfers) {
            const res = await record(`blob store down: ${request}`, () => send().timeout(30_000));
            assert.equal(res.status, 503, `${request}: ${res.status} ${res.text}`);
            assert.ok(Number(res.headers['retry-after']) > 0, `${request}: Retry-After`);
            assert.equal((res.body as { dependency?: string }).dependency, 'blob store', `${request}: ${res.text}`);
          }
          const listing = await record('blob store down: a folder listing', () =>
            auth(agent.get(`${reader.root}/laptop/Docs/`)),
          );
          assert.equal(listing.status, 200, 'listings need no blob');
          t.diagnostic(
            'blob store down: uploads and downloads answered 503 naming the blob store, with Retry-After; listings went on',
          );
          await minio.restore();
          await eventually(
            async () => {
              const res = await reader.putFile('laptop', 'Docs/d.txt', 'fourth file');
              assert.ok(
                res.status === 201,
                `an upload to succeed once the blob store is back: ${res.status} ${res.text}`,
              );
            },
            60_000,
            200,
          );
        } else {
          t.diagnostic('no MINIO_URL: the blob-store outage was not tried');
        }
        for (const p of target.processes())
          assert.equal(p.exitCode ?? p.signalCode, null, `${p.name} exited:\n${p.output.slice(-3000)}`);
        for (const p of target.processes())
          assert.doesNotMatch(
            p.output,
            /"msg":"unhandled error"/,
            `${p.name} logged an unhandled error:\n${p.output.slice(-5000)}`,
          );
      } catch (error) {
        const logs = target.processes().map((p) => `--- ${p.name}:\n${p.output.slice(-6000)}`);
        throw new Error(`${(error as Error).message}\nanswers: ${JSON.stringify(statuses)}\n${logs.join('\n')}`, {
          cause: error,
        });
      } finally {
        await pg.restore();
        await minio?.restore();
        await target.close();
        await pg.close();
        await minio?.close();
        await dropPostgresDatabase(postgresUrl!, database).catch(() => undefined);
      }
    });
  },
);
