/**
 * The document's `paths`, built from the route declarations (http/route.ts): each controller's
 * `@Route` handlers at the controller's first mount, and routes served outside Nest's router (WebDAV)
 * declared with their mount. `groups/:id` becomes `/groups/{id}`, a wildcard `*path` becomes `{path}`.
 */
import { SAFE_METHODS } from '../http/cross-site.js';
import { controllerHandlers, type RouteDeclaration, routeOf } from '../http/route.js';
import { body, JSON_TYPE, queryParameters, responseRef } from './builders.js';
import { crossSiteExample } from './common.js';
import type { Operation, PathItem, PathsFragment, RequestBody, Response } from '../http/openapi-types.js';

/** Routes not on a Nest controller (the WebDAV middleware's), at their mount. */
export interface MountedRoutes {
  mount: string;
  routes: readonly RouteDeclaration[];
}

/** Where the document finds routes: a controller class (its `@Route` handlers), or mounted routes. */
export type RouteSource = (abstract new (...args: never[]) => unknown) | MountedRoutes;

/** `('apis/billing/v1', 'coupon')` -> `/apis/billing/v1/coupon`; `users/:user/` -> `/users/{user}/`. */
export function openApiPath(mount: string, path: string): string {
  return `/${mount}/${path}`.replace(/\/{2,}/g, '/').replace(/[:*]([A-Za-z0-9_]+)/g, '{$1}');
}

/** The OpenAPI operation of a declaration: its prose, with the parameters and body generated from its schemas. */
export function operationOf(declaration: RouteDeclaration): Operation {
  const { queryNotes, parameters: declared, requestBody: prose, responses, ...rest } = declaration.operation;
  const where = `${declaration.method.toUpperCase()} ${declaration.path}`;
  if (queryNotes && !declaration.query) throw new Error(`${where}: query notes without a query schema`);
  // path parameters, then the query schema's, then the rest (headers, queries parsed by hand)
  const parameters =
    declared || declaration.query
      ? [
          ...(declared ?? []).filter((p) => p.in === 'path'),
          ...(declaration.query ? queryParameters(declaration.query, queryNotes) : []),
          ...(declared ?? []).filter((p) => p.in !== 'path'),
        ]
      : undefined;
  let requestBody: RequestBody | undefined;
  if (prose && 'content' in prose) {
    requestBody = prose;
  } else if (declaration.body) {
    if (!prose) throw new Error(`${where}: a body schema needs its prose (operation.requestBody)`);
    requestBody = body(prose.description, declaration.body, prose.examples, prose.required);
  } else if (prose) {
    throw new Error(`${where}: body prose without a body schema`);
  }
  return {
    ...rest,
    ...(parameters ? { parameters } : {}),
    ...(requestBody ? { requestBody } : {}),
    responses: withCrossSite(declaration.method, responses),
  };
}

/**
 * A change can be refused as sent by another site (http/cross-site.ts, before any route): its
 * operation's 403 says so, the common `CrossSite` response where it declares none, else its own
 * 403 with the cross-site example added.
 */
function withCrossSite(method: string, responses: Operation['responses']): Operation['responses'] {
  if (SAFE_METHODS.has(method.toUpperCase())) return responses;
  const own = responses['403'];
  if (!own) return { ...responses, '403': responseRef('CrossSite') };
  if ('$ref' in own) return responses;
  const json = own.content?.[JSON_TYPE];
  if (!json || 'crossSite' in json.examples) return responses;
  const merged: Response = {
    ...own,
    description: `${own.description} Or a change sent by a page of another site (\`Origin\`, \`Sec-Fetch-Site\`).`,
    content: { ...own.content, [JSON_TYPE]: { ...json, examples: { ...json.examples, crossSite: crossSiteExample } } },
  };
  return { ...responses, '403': merged };
}

function declarationsOf(source: RouteSource): [string, RouteDeclaration][] {
  if (typeof source === 'function') {
    const { mounts, handlers } = controllerHandlers(source);
    // interface A is mounted twice; the document shows the first mount (the second is the second server)
    return handlers
      .map(([, handler]) => routeOf(handler))
      .filter((d) => d !== undefined)
      .map((d) => [mounts[0], d]);
  }
  return source.routes.map((d) => [source.mount, d]);
}

/** Every source's paths, in the order of the sources and of the routes within each. */
export function routePaths(sources: readonly RouteSource[]): PathsFragment {
  const paths: PathsFragment = {};
  const add = (path: string, item: PathItem) => {
    // a path's methods may come from several controllers (the storage read and write sides)
    const existing = paths[path] ?? {};
    for (const key of Object.keys(item)) {
      if (key in existing) throw new Error(`OpenAPI: ${key} of ${path} is declared twice`);
    }
    paths[path] = { ...existing, ...item };
  };
  for (const source of sources) {
    for (const [mount, declaration] of declarationsOf(source)) {
      add(openApiPath(mount, declaration.path), {
        ...declaration.pathItem,
        [declaration.method]: operationOf(declaration),
      });
    }
  }
  return paths;
}
