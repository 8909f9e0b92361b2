/**
 * Scale-out under faults, multi-process on NATS and on the run's production servers (MinIO,
 * FerretDB when configured: harness/servers.ts): two gateways and two replicas of every service,
 * under load from both gateways; one replica of each service is killed with SIGKILL. No request
 * hangs (each answers within the bus timeout and a margin), every failure is a 503 with a reason,
 * no acknowledged write is lost, and sessions and links minted by one gateway work on the other.
 * The replicas of a service share its read-model database (when MongoDB is configured), so this
 * also runs two projection runners on one database while one of them dies.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import supertest from 'supertest';
import { partnerApi } from './harness/client.js';
import { natsUrlForTests, startMultiProcess } from './harness/multi-process.js';
import { storageApi } from './harness/storage-client.js';

const natsUrl = natsUrlForTests();
const RPC_TIMEOUT_MS = 3000;
/** a request that takes longer than the bus timeout and this margin counts as hung */
const HANG_MS = RPC_TIMEOUT_MS + 5000;
const PASSWORD = 'scale-out-password-1';

describe(
  'scale-out under faults (multi-process)',
  { skip: natsUrl ? false : 'NATS_URL not set and no nats-server found', timeout: 300_000 },
  () => {
    it('kill -9 of one replica of each service under load: no hang, 503s with a reason only, no acknowledged write lost, sessions and links work on every gateway', async () => {
      const target = await startMultiProcess(
        natsUrl!,
        { BURROW_RPC_TIMEOUT_MS: String(RPC_TIMEOUT_MS) },
        { replicas: { accounts: 2, billing: 2, 'storage-catalog': 2 } },
      );
      try {
        const [first, second] = target.urls;
        const api = (url: string) => partnerApi(target, url);
        await api(first)
          .post('/users/', {
            name: 'Owner',
            email: 'owner@example.com',
            username: 'owner',
            password: PASSWORD,
            plan_id: 1,
          })
          .expect(201);
        const owner = (url: string) => storageApi(target, 'owner', PASSWORD, url);
        await owner(first).putDevice('laptop').expect(200);
        await owner(first).putFile('laptop', 'notes.txt', 'before the faults').expect(201);
        // minted on the first gateway
        const login = await supertest(first)
          .post(`${owner(first).root}/login`)
          .type('form')
          .send({ password: PASSWORD })
          .expect(200);
        const cookie = (login.headers['set-cookie'] as unknown as string[])[0].split(';')[0];
        const link = (
          await supertest(first)
            .post(`${owner(first).root}/laptop/notes.txt`)
            .auth('owner', PASSWORD)
            .send('')
            .expect(200)
        ).text;

        const users: string[] = [];
        const files: { path: string; body: string }[] = [];
        const failures: string[] = [];
        let requests = 0;
        let answered = 0;
        let stop = false;
        /** resolves once `answered` reaches `count`: the load's progress, not a clock, paces the test */
        const answeredReach = async (count: number) => {
          const deadline = Date.now() + 120_000;
          while (answered < count && failures.length === 0) {
            assert.ok(Date.now() < deadline, `only ${answered} of ${count} requests answered in 120 s`);
            await new Promise((r) => setTimeout(r, 20));
          }
        };
        const timed = async (what: string, request: supertest.Test): Promise<supertest.Response | null> => {
          requests++;
          const started = Date.now();
          let res: supertest.Response;
          try {
            res = await request.timeout(HANG_MS);
          } catch (error) {
            answered++;
            failures.push(`${what}: no answer within ${HANG_MS} ms (${(error as Error).message})`);
            return null;
          }
          answered++;
          if (res.status >= 300) {
            if (res.status !== 503 || typeof res.body?.reason !== 'string' || !res.body.reason)
              failures.push(`${what}: ${res.status} ${res.text}`);
            else if (Date.now() - started > RPC_TIMEOUT_MS + 3000)
              failures.push(`${what}: a 503 after ${Date.now() - started} ms`);
            return null;
          }
          return res;
        };
        const worker = async (w: number) => {
          for (let i = 0; !stop; i++) {
            const url = target.urls[(w + i) % 2];
            const username = `load${w}x${i}`;
            if (
              await timed(
                `create ${username}`,
                api(url).post('/users/', {
                  name: username,
                  email: `${username}@example.com`,
                  username,
                  password: PASSWORD,
                  plan_id: 1,
                }),
              )
            )
              users.push(username);
            const path = `load/${w}/${i}.txt`;
            const body = `file ${w} ${i}`;
            if (await timed(`upload ${path}`, owner(url).putFile('laptop', path, body))) files.push({ path, body });
            await timed('partner billing', api(url).get('/partner/billing'));
            await timed('read a user', api(url).get(`/users/${users[users.length - 1] ?? 'owner'}`));
          }
        };
        const load = Promise.all([0, 1, 2, 3].map(worker));
        // 10 rounds of the four requests spread over both replicas of each service, then the kills,
        // then 30 more rounds: requests caught on a killed replica and the load after it
        await answeredReach(40);
        for (const name of ['accounts-2', 'billing-2', 'storage-catalog-2']) target.killProcess(name, 'SIGKILL');
        await answeredReach(answered + 120);
        stop = true;
        await load;

        assert.deepEqual(
          failures,
          [],
          `${failures.length} of ${requests} requests failed otherwise than with a prompt 503`,
        );
        assert.ok(users.length > 0 && files.length > 0, 'the load made progress');
        // nothing acknowledged is lost, whichever gateway reads it
        for (const [i, username] of users.entries())
          await api(target.urls[i % 2])
            .get(`/users/${username}`)
            .expect(200);
        for (const [i, f] of files.entries()) {
          const got = await supertest(target.urls[i % 2])
            .get(`${owner(first).root}/laptop/${f.path}`)
            .auth('owner', PASSWORD)
            .buffer(true)
            .parse((res, done) => {
              const chunks: Buffer[] = [];
              res.on('data', (c: Buffer) => chunks.push(c));
              res.on('end', () => done(null, Buffer.concat(chunks)));
            });
          assert.equal(got.status, 200, f.path);
          assert.equal((got.body as Buffer).toString(), f.body);
        }
        // the session and the link minted by the first gateway, on the second
        await supertest(second)
          .get(`${owner(second).root}/`)
          .set('Cookie', cookie)
          .expect(200);
        const viaLink = await supertest(second).get(link).buffer(true);
        assert.equal(viaLink.status, 200);
        assert.equal(viaLink.text, 'before the faults');
        const killed = target
          .processes()
          .filter((p) => p.signalCode === 'SIGKILL')
          .map((p) => p.name)
          .sort();
        assert.deepEqual(killed, ['accounts-2', 'billing-2', 'storage-catalog-2']);
        assert.ok(
          target.processes().every((p) => p.signalCode === 'SIGKILL' || p.exitCode === null),
          'no other process died',
        );
      } finally {
        await target.close();
      }
    });
  },
);
