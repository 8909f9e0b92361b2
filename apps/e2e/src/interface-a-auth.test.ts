/**
 * Every route of interface A (the partner accounts API, its billing API, the feed and webhooks)
 * refuses a call that does not carry the partner's right credentials, whichever way the route
 * authenticates: `PartnerGuard` asking accounts first, or `@AuthenticatedInCall()` (the
 * credentials carried with the route's own accounts call and checked there). Walks the gateway's
 * controllers, so a route added without its guard, or a handler that answers before the
 * credentials were checked, fails here.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ACCOUNTS_API_CONTROLLERS } from '@burrow/gateway/accounts-api/accounts-api.module';
import { EVENTS_CONTROLLERS } from '@burrow/gateway/events/events.module';
import { IN_CALL_KEY, PartnerInCallInterceptor } from '@burrow/gateway/http/partner-in-call';
import { PartnerGuard } from '@burrow/gateway/http/partner.guard';
import { controllerHandlers, routeOf } from '@burrow/gateway/http/route';
import { GUARDS_METADATA, INTERCEPTORS_METADATA } from '@nestjs/common/constants.js';
import supertest from 'supertest';
import { partnerApi } from './harness/client.js';
import { startStandalone, type TestTarget } from './harness/standalone.js';

type Controller = abstract new (...args: never[]) => unknown;
const CONTROLLERS: Controller[] = [...ACCOUNTS_API_CONTROLLERS, ...EVENTS_CONTROLLERS];

interface Served {
  controller: string;
  handler: string;
  method: string;
  /** a concrete path: parameters filled in */
  path: string;
  guarded: boolean;
  inCall: boolean;
}

const metadata = (key: string, target: unknown): unknown[] => (Reflect.getMetadata(key, target as object) as unknown[] | undefined) ?? [];

function servedRoutes(): Served[] {
  const out: Served[] = [];
  for (const controller of CONTROLLERS) {
    const { mounts, handlers } = controllerHandlers(controller);
    for (const [name, handler] of handlers) {
      const route = routeOf(handler);
      if (!route) continue;
      const guards = [...metadata(GUARDS_METADATA, controller), ...metadata(GUARDS_METADATA, handler as object)];
      const inCall = Reflect.getMetadata(IN_CALL_KEY, handler as object) === true || Reflect.getMetadata(IN_CALL_KEY, controller) === true;
      const interceptors = [...metadata(INTERCEPTORS_METADATA, controller), ...metadata(INTERCEPTORS_METADATA, handler as object)];
      if (inCall) assert.ok(interceptors.includes(PartnerInCallInterceptor), `${controller.name}.${name}: in-call without its interceptor`);
      const filled = route.path.replace(/:user\b/g, 'someone').replace(/:room\b/g, 'room1').replace(/:[A-Za-z_]+/g, '1').replace(/\*[A-Za-z_]+/g, 'x');
      for (const mount of mounts) {
        out.push({
          controller: controller.name,
          handler: name,
          method: route.method,
          path: `/${[mount, filled].filter(Boolean).join('/')}`,
          guarded: guards.includes(PartnerGuard),
          inCall,
        });
      }
    }
  }
  return out;
}

describe('interface A: every route refuses a call without the right partner credentials', () => {
  const routes = servedRoutes();
  let target: TestTarget;
  before(async () => {
    target = await startStandalone();
    await partnerApi(target).get('/ping').expect(200);
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

  it('finds the routes, each guarded by PartnerGuard', () => {
    assert.ok(routes.length > 60, `only ${routes.length} routes found`);
    const unguarded = routes.filter((r) => !r.guarded).map((r) => `${r.method.toUpperCase()} ${r.path} (${r.controller}.${r.handler})`);
    assert.deepEqual(unguarded, []);
  });

  it('the routes that call accounts only are authenticated in the call (one bus round trip)', () => {
    const inCall = new Set(routes.filter((r) => r.inCall).map((r) => `${r.controller}.${r.handler}`));
    const expected = new Set(
      routes
        .filter((r) => ['UsersController', 'GroupsController', 'PartnerController'].includes(r.controller))
        // enabling a share room calls the storage catalog: authenticated by the guard first
        .filter((r) => r.handler !== 'setShareEnabled')
        .map((r) => `${r.controller}.${r.handler}`),
    );
    assert.deepEqual([...inCall].sort(), [...expected].sort());
  });

  it('no Authorization header, or a malformed one: 401 on every route', async () => {
    const wrong: string[] = [];
    for (const route of routes) {
      for (const authorization of [undefined, 'Bearer abc', 'Basic !!!']) {
        const res = await send(route, authorization);
        if (res.status !== 401 || !/json/.test(String(res.headers['content-type']))) wrong.push(`${route.method.toUpperCase()} ${route.path} [${authorization ?? 'none'}]: ${res.status}`);
      }
    }
    assert.deepEqual(wrong, []);
  });

  it('a wrong password or an unknown partner: refused on every route (401, or 429 once the throttle holds the attempts)', async () => {
    const wrong: string[] = [];
    const basic = (username: string, password: string) => `Basic ${Buffer.from(`${username}:${password}`).toString('base64')}`;
    for (const route of routes) {
      for (const authorization of [basic(target.partner.username, 'not-the-password'), basic('no-such-partner', target.partner.password)]) {
        const res = await send(route, authorization);
        if (res.status !== 401 && res.status !== 429) wrong.push(`${route.method.toUpperCase()} ${route.path}: ${res.status} ${JSON.stringify(res.body)}`);
      }
    }
    assert.deepEqual(wrong, []);
  });
});
