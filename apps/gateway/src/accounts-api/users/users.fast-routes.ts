/**
 * Interface A's hottest reads as fast routes (http/fast-routes.ts): a user record
 * (`GET /users/<u>`) and a page of users (`GET /users/`), at every mount of interface A. Each runs
 * what its Nest route runs, in Nest's order and with the same objects:
 * - `PartnerGuard`: 401 without well-formed HTTP Basic credentials; the route is authenticated in
 *   its accounts call (`@AuthenticatedInCall()`), so the guard gives the request its `PartnerInCall`;
 * - inside what `PartnerInCallInterceptor` does (`settledAfter`): the parameters (the query parsed
 *   with the route's schema, which Nest also does inside the interceptors) and the controller's
 *   own handler; a refusal of the credentials wins over the handler's error or answer;
 * - the answer as Nest's Express adapter writes it (`replyAsNest`).
 * Errors go to the gateway's exception filter, as from Nest (FastRoutes' `onError`).
 */
import { parseQuery } from '@burrow/contracts';
import type { INestApplication } from '@nestjs/common';
import type { Response } from 'express';
import type { FastRouteDefinition } from '../../http/fast-routes.js';
import { settledAfter } from '../../partner-access/partner-in-call.js';
import { PartnerGuard } from '../../partner-access/partner.guard.js';
import { ACCOUNTS_API_MOUNTS } from '../mount.js';
import { UsersController } from './users.controller.js';
import { USER_ROUTES } from './users.routes.js';

/** The fast routes of `UsersController.get` and `UsersController.list`, one per mount. */
export function userFastRoutes(app: INestApplication): FastRouteDefinition[] {
  const guard = app.get(PartnerGuard, { strict: false });
  const users = app.get(UsersController, { strict: false });
  return ACCOUNTS_API_MOUNTS.flatMap((mount): FastRouteDefinition[] => [
    {
      method: 'GET',
      path: nestPath(mount, USER_ROUTES.get.path),
      handle: async (req, res) => {
        const partner = guard.inCall(req);
        replyAsNest(res, await settledAfter(partner, () => users.get(partner, req.params.user as string)));
      },
    },
    {
      method: 'GET',
      path: nestPath(mount, USER_ROUTES.list.path),
      handle: async (req, res) => {
        const partner = guard.inCall(req);
        const page = await settledAfter(partner, () =>
          users.list(partner, parseQuery(USER_ROUTES.list.query, req.query as Record<string, unknown>), res),
        );
        replyAsNest(res, page);
      },
    },
  ]);
}

/** The path Nest gives Express for a route of a controller mounted at `mount`: `/<mount>/<path>`, without a trailing slash. */
function nestPath(mount: string, path: string): string {
  const joined = `/${[mount, path].filter((part) => part !== '').join('/')}`;
  return joined.length > 1 ? joined.replace(/\/+$/, '') : joined;
}

/** What Nest's Express adapter does with a handler's answer on a route without `@HttpCode` (200). */
function replyAsNest(res: Response, body: unknown): void {
  res.status(200);
  if (body === undefined || body === null) res.send();
  else if (typeof body === 'object') res.json(body);
  else {
    const value = body as string | number | boolean;
    res.send(String(value));
  }
}
