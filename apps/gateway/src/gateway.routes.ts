/**
 * Every route the gateway serves, and the OpenAPI document of them. The document lists paths in the
 * order of `GATEWAY_ROUTES` (and, within a controller, of its handlers): the interfaces as a reader
 * meets them, interface A first, the operator endpoints last. Adding a route to a controller adds it
 * to the document; only a new controller (or routes outside Nest's router) is added here.
 */
import { ACCOUNTS_API_CONTROLLERS } from './accounts-api/accounts-api.module.js';
import { DAV_MOUNT, DAV_ROUTES } from './dav/dav.routes.js';
import { EVENTS_CONTROLLERS } from './events/events.module.js';
import { openApiDocument } from './gateway.openapi.js';
import type { RouteSource } from './openapi/paths.js';
import type { OpenApiDocument } from './http/openapi-types.js';
import { OPS_CONTROLLERS } from './ops/ops.module.js';
import { SHARE_API_CONTROLLERS } from './share-api/share-api.module.js';
import { STORAGE_API_CONTROLLERS } from './storage-api/storage-api.module.js';
import { WEB_CONTROLLERS } from './web/web.module.js';

/** Every controller the gateway serves (the OpenAPI test compares their routes with the document). */
export const GATEWAY_CONTROLLERS = [
  ...ACCOUNTS_API_CONTROLLERS,
  ...EVENTS_CONTROLLERS,
  ...STORAGE_API_CONTROLLERS,
  ...SHARE_API_CONTROLLERS,
  ...WEB_CONTROLLERS,
  ...OPS_CONTROLLERS,
];

/**
 * Where the document finds the routes, in the order it lists them: the controllers, with WebDAV
 * (served by a middleware, not a controller) before the operator endpoints.
 */
export const GATEWAY_ROUTES: readonly RouteSource[] = [
  ...ACCOUNTS_API_CONTROLLERS,
  ...EVENTS_CONTROLLERS,
  ...STORAGE_API_CONTROLLERS,
  ...SHARE_API_CONTROLLERS,
  ...WEB_CONTROLLERS,
  { mount: DAV_MOUNT, routes: DAV_ROUTES },
  ...OPS_CONTROLLERS,
];

let built: OpenApiDocument | undefined;

/** The gateway's OpenAPI document (built once: the routes and schemas do not change while the process runs). */
export function gatewayOpenApiDocument(): OpenApiDocument {
  built ??= openApiDocument(GATEWAY_ROUTES);
  return built;
}
