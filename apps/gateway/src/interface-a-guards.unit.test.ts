/**
 * Every route of interface A (the partner accounts API, its billing API, the feed and webhooks)
 * is guarded by `PartnerGuard`, and exactly the routes that call accounts alone are authenticated
 * in that call (`@AuthenticatedInCall()` with its interceptor: one bus round trip). Walks the
 * controllers' declarations, so a route added without its guard fails here; the e2e suite
 * (apps/e2e/src/interface-a-auth.test.ts) sends every documented route a call without the right
 * credentials over HTTP.
 */
import 'reflect-metadata';
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { GUARDS_METADATA, INTERCEPTORS_METADATA } from '@nestjs/common/constants.js';
import { EVENTS_CONTROLLERS } from './events/events.module.js';
import { IN_CALL_KEY, PartnerInCallInterceptor } from './partner-access/partner-in-call.js';
import { PartnerGuard } from './partner-access/partner.guard.js';
import { controllerHandlers, routeOf } from './http/route.js';
import { ACCOUNTS_API_CONTROLLERS } from './accounts-api/accounts-api.module.js';

type Controller = abstract new (...args: never[]) => unknown;

interface Declared {
  /** `Controller.handler` */
  name: string;
  controller: string;
  handler: string;
  guarded: boolean;
  inCall: boolean;
  /** the in-call interceptor is on the route */
  intercepted: boolean;
}

const metadata = (key: string, target: unknown): unknown[] =>
  (Reflect.getMetadata(key, target as object) as unknown[] | undefined) ?? [];

function declaredRoutes(controllers: Controller[]): Declared[] {
  const out: Declared[] = [];
  for (const controller of controllers) {
    for (const [handler, fn] of controllerHandlers(controller).handlers) {
      if (!routeOf(fn)) continue;
      const guards = [...metadata(GUARDS_METADATA, controller), ...metadata(GUARDS_METADATA, fn)];
      const interceptors = [...metadata(INTERCEPTORS_METADATA, controller), ...metadata(INTERCEPTORS_METADATA, fn)];
      out.push({
        name: `${controller.name}.${handler}`,
        controller: controller.name,
        handler,
        guarded: guards.includes(PartnerGuard),
        inCall:
          Reflect.getMetadata(IN_CALL_KEY, fn as object) === true ||
          Reflect.getMetadata(IN_CALL_KEY, controller) === true,
        intercepted: interceptors.includes(PartnerInCallInterceptor),
      });
    }
  }
  return out;
}

describe('interface A routes: guards', () => {
  const routes = declaredRoutes([...ACCOUNTS_API_CONTROLLERS, ...EVENTS_CONTROLLERS]);

  it('finds the routes, each guarded by PartnerGuard', () => {
    assert.ok(routes.length >= 45, `only ${routes.length} routes found`);
    assert.deepEqual(
      routes.filter((r) => !r.guarded).map((r) => r.name),
      [],
    );
  });

  it('the routes that call accounts only are authenticated in the call, each with its interceptor', () => {
    const expected = routes
      .filter((r) => ['UsersController', 'GroupsController', 'PartnerController'].includes(r.controller))
      // a share room's enabling or password goes to the storage catalog: authenticated by the guard first
      .filter((r) => r.handler !== 'changeShare')
      .map((r) => r.name);
    assert.deepEqual(
      routes
        .filter((r) => r.inCall)
        .map((r) => r.name)
        .sort(),
      expected.sort(),
    );
    assert.deepEqual(
      routes.filter((r) => r.inCall && !r.intercepted).map((r) => r.name),
      [],
    );
  });
});
