/**
 * The gateway's fast routes (http/fast-routes.ts), registered once Nest has built the app. Here
 * because a fast route accounts for every layer before its Nest route, pages included.
 *
 * The storage interface's reads: `GET` and `HEAD` of
 * `/storage/*path` (a file's bytes, a version, a preview, a listing, a zip: the one Nest route of
 * `StorageReadController.get`) run `StorageUserGuard` and that handler directly, as Nest would:
 * the guard, the status Nest sets before a handler (200), the `@StorageUser()` check, the handler.
 * A request the storage pages answer (it prefers `text/html` and carries no `se=`: the one
 * middleware on this route, `StoragePages`) goes through Express and Nest as before.
 *
 * A single-file share link, `GET`/`HEAD /link/:token/*name` (`ShareController.link`: no guard, no
 * middleware), the same way.
 *
 * Interface A's user record and page of users (`GET /users/<u>`, `GET /users/`, at both mounts):
 * accounts-api/users/users.fast-routes.ts.
 */
import { unauthorized } from '@burrow/contracts';
import type { INestApplication } from '@nestjs/common';
import type { FastRoutes } from './http/fast-routes.js';
import { queryValue } from './http/query.js';
import { type StorageRequest, StorageUserGuard } from './storage-access/storage-user.guard.js';
import { prefersHtml } from './web/page.js';
import { ShareController } from './share-api/share.controller.js';
import { SHARE_ROUTES } from './share-api/share.routes.js';
import { StorageReadController } from './storage-api/storage-read.controller.js';
import { STORAGE_READ_ROUTES } from './storage-api/storage-read.routes.js';
import { userFastRoutes } from './accounts-api/users/users.fast-routes.js';

export function registerFastRoutes(fast: FastRoutes, app: INestApplication): void {
  const guard = app.get(StorageUserGuard, { strict: false });
  const controller = app.get(StorageReadController, { strict: false });
  fast.register({
    method: 'GET',
    path: `/${STORAGE_READ_ROUTES.get.path}`,
    // StoragePages (WebModule) is bound to GET on this path: it answers what prefers a page and is not a session extension's
    middlewares: 1,
    declines: (req) => prefersHtml(req) && queryValue(req, 'se') === undefined,
    handle: async (req, res) => {
      await guard.authenticate(req, res);
      res.status(200);
      const user = (req as StorageRequest).storageUser;
      if (!user) throw unauthorized();
      await controller.get(req as StorageRequest, res, user);
    },
  });
  const share = app.get(ShareController, { strict: false });
  fast.register({
    method: 'GET',
    path: `/${SHARE_ROUTES.link.path}`,
    handle: async (req, res) => {
      res.status(200);
      await share.link(req, res);
    },
  });
  // interface A's user record and page of users (accounts-api/users/users.fast-routes.ts)
  for (const route of userFastRoutes(app)) fast.register(route);
}
