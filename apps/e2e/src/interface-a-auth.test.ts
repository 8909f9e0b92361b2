/**
 * Every route of interface A (the partner accounts API, its billing API, the feed and webhooks)
 * refuses a call that does not carry the partner's right credentials, whichever way the route
 * authenticates (`PartnerGuard` asking accounts first, or the credentials carried with the route's
 * own accounts call and checked there). The routes are read from outside, from the OpenAPI
 * document the server serves: every operation that takes the partner's Basic credentials (the
 * document's default security), on each server (mount) its path is served at. The gateway's own
 * test checks that the document names every route and that every route is guarded
 * (apps/gateway/src/openapi, apps/gateway/src/interface-a-guards.unit.test.ts), so a
 * route added without its guard fails there and, if a handler answers before the check, here.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import supertest from 'supertest';
import { partnerApi } from './harness/client.js';
import { startStandalone, type TestTarget } from './harness/standalone.js';

interface Served {
  method: string;
  /** a concrete path: parameters filled in, under its mount */
  path: string;
}

interface Operation {
  operationId?: string;
  security?: unknown[];
}
interface Document {
  servers: { url: string }[];
  security?: unknown[];
  paths: Record<string, Record<string, unknown> & { servers?: { url: string }[] }>;
}

const METHODS = ['get', 'post', 'put', 'delete', 'patch'];
const filled = (template: string) =>
  template
    .replace(/\{user\}/g, 'someone')
    .replace(/\{room\}/g, 'room1')
    .replace(/\{[A-Za-z_]+\}/g, '1');

/** The operations that take the partner's credentials (the document's default security), on every mount of their path. */
function partnerRoutes(doc: Document): Served[] {
  assert.ok(doc.security?.length, 'the document names a default security (the partner Basic credentials)');
  const out: Served[] = [];
  for (const [template, item] of Object.entries(doc.paths)) {
    for (const method of METHODS) {
      const op = item[method] as Operation | undefined;
      if (!op || op.security !== undefined) continue; // its own security: interface B, pages, operations
      for (const { url } of item.servers ?? doc.servers)
        out.push({ method, path: `${url.replace(/\/$/, '')}${filled(template)}` });
    }
  }
  return out;
}

describe('interface A: every route refuses a call without the right partner credentials', () => {
  let routes: Served[] = [];
  let target: TestTarget;
  before(async () => {
    target = await startStandalone();
    await partnerApi(target).get('/ping').expect(200);
    const doc = await supertest(target.url).get('/openapi.json').expect(200);
    routes = partnerRoutes(doc.body as Document);
  });
  after(async () => {
    await target?.close();
  });

  const send = (route: Served, authorization?: string) => {
    const agent = supertest(target.url);
    const method = route.method as 'get' | 'post' | 'put' | 'delete' | 'patch';
    let request = agent[method](route.path);
    if (authorization !== undefined) request = request.set('Authorization', authorization);
    if (method !== 'get' && method !== 'delete') request = request.set('Content-Type', 'text/javascript').send('{}');
    return request;
  };

  it('reads the routes from the served OpenAPI document, both mounts', () => {
    assert.ok(routes.length > 60, `only ${routes.length} routes found`);
    for (const path of [
      '/users/someone',
      '/apis/accounts/v1/users/someone',
      '/groups/1',
      '/apis/billing/v1/payments',
      '/webhooks/1',
      '/events/',
    ]) {
      assert.ok(
        routes.some((r) => r.path === path),
        `${path} is among the routes`,
      );
    }
  });

  it('no Authorization header, or a malformed one: 401 on every route', async () => {
    const wrong: string[] = [];
    for (const route of routes) {
      for (const authorization of [undefined, 'Bearer abc', 'Basic !!!']) {
        const res = await send(route, authorization);
        if (res.status !== 401 || !/json/.test(String(res.headers['content-type'])))
          wrong.push(`${route.method.toUpperCase()} ${route.path} [${authorization ?? 'none'}]: ${res.status}`);
      }
    }
    assert.deepEqual(wrong, []);
  });

  it('a wrong password or an unknown partner: refused on every route (401, or 429 once the throttle holds the attempts)', async () => {
    const wrong: string[] = [];
    const basic = (username: string, password: string) =>
      `Basic ${Buffer.from(`${username}:${password}`).toString('base64')}`;
    for (const route of routes) {
      for (const authorization of [
        basic(target.partner.username, 'not-the-password'),
        basic('no-such-partner', target.partner.password),
      ]) {
        const res = await send(route, authorization);
        if (res.status !== 401 && res.status !== 429)
          wrong.push(`${route.method.toUpperCase()} ${route.path}: ${res.status} ${JSON.stringify(res.body)}`);
      }
    }
    assert.deepEqual(wrong, []);
  });
});
