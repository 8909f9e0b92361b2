/**
 * Keeps the OpenAPI document true to the gateway: its operations are exactly the routes the Nest
 * controllers serve (read from Nest's own route metadata, both directions), every controller route
 * is a declaration (`@Route`, http/route.ts: no bare `@Get`), every `$ref` resolves,
 * every response has a description and examples, every example matches its schema, every 409 uses
 * the Error schema and every 401 carries the Basic challenge. Pure: nothing is started.
 */
import 'reflect-metadata';
import { z } from '@burrow/contracts';
import { Controller, Get, RequestMethod } from '@nestjs/common';
import { METHOD_METADATA, PATH_METADATA, ROUTE_ARGS_METADATA } from '@nestjs/common/constants.js';
import * as ajv2020 from 'ajv/dist/2020.js';
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ACCOUNTS_API_MOUNTS } from '../accounts-api/mount.js';
import { DAV_METHODS } from '../dav/dav.middleware.js';
import { GATEWAY_CONTROLLERS, gatewayOpenApiDocument } from '../gateway.routes.js';
import { Query } from '../http/request.js';
import { controllerHandlers, Route, route, routeOf } from '../http/route.js';
import {
  HTTP_METHODS,
  type MediaType,
  type OpenApiDocument,
  type Operation,
  type Parameter,
  type Response,
} from '../http/openapi-types.js';

const openApiDocument = gatewayOpenApiDocument();

type Json = Record<string, unknown>;
const MOUNTS = ACCOUNTS_API_MOUNTS.filter((m) => m !== '');

/** `apis/accounts/v1/users/:user/` -> `/users/{user}`: the form both sides are compared in. */
function normalizeRoute(path: string): string {
  let p = `/${path}`.replace(/\/{2,}/g, '/');
  for (const mount of MOUNTS) {
    const prefix = `/${mount}`;
    if (p === prefix || p.startsWith(`${prefix}/`)) p = p.slice(prefix.length) || '/';
  }
  // `:name` and the multi-segment wildcard `*name` are both a `{name}` in OpenAPI
  p = p.replace(/[:*]([A-Za-z0-9_]+)/g, '{$1}');
  if (p.length > 1) p = p.replace(/\/+$/, '');
  return p;
}

const asList = (value: unknown): string[] =>
  value === undefined ? [''] : Array.isArray(value) ? value.map(String) : [String(value)];

/** `GET /users/{user}` for every route of every controller, over every mount. */
function routesOf(controllers: readonly (new (...args: never[]) => unknown)[]): Set<string> {
  const routes = new Set<string>();
  for (const controller of controllers) {
    const prefixes = asList(Reflect.getMetadata(PATH_METADATA, controller));
    for (const key of Object.getOwnPropertyNames(controller.prototype)) {
      if (key === 'constructor') continue;
      const handler = (controller.prototype as Record<string, unknown>)[key];
      if (typeof handler !== 'function') continue;
      const method = Reflect.getMetadata(METHOD_METADATA, handler) as RequestMethod | undefined;
      if (method === undefined) continue;
      for (const prefix of prefixes) {
        for (const path of asList(Reflect.getMetadata(PATH_METADATA, handler))) {
          routes.add(`${RequestMethod[method]} ${normalizeRoute(`${prefix}/${path}`)}`);
        }
      }
    }
  }
  return routes;
}

type ControllerClass = new (...args: never[]) => unknown;

/** The schemas a handler's `@Query(schema)` / `@Body(schema)` parameters parse with. */
function parsersOf(controller: ControllerClass, key: string): unknown[] {
  const args = (Reflect.getMetadata(ROUTE_ARGS_METADATA, controller, key) ?? {}) as Record<
    string,
    { data?: { parser?: unknown } }
  >;
  return Object.values(args)
    .map((a) => a.data?.parser)
    .filter((p) => p !== undefined);
}

/**
 * Handlers routed by Nest without a declaration, routed elsewhere than declared, or parsing a query
 * or body with a schema that is not their declaration's (`Class.method: why`).
 */
function undeclaredHandlers(controllers: readonly ControllerClass[]): string[] {
  const strays: string[] = [];
  for (const controller of controllers) {
    for (const [key, handler] of controllerHandlers(controller).handlers) {
      const method = Reflect.getMetadata(METHOD_METADATA, handler as object) as RequestMethod | undefined;
      if (method === undefined) continue;
      const declared = routeOf(handler);
      const where = `${controller.name}.${key}`;
      if (!declared) {
        strays.push(`${where}: no @Route declaration`);
        continue;
      }
      if (
        RequestMethod[method] !== declared.method.toUpperCase() ||
        Reflect.getMetadata(PATH_METADATA, handler as object) !== declared.path
      ) {
        strays.push(
          `${where}: routed as ${RequestMethod[method]} ${String(Reflect.getMetadata(PATH_METADATA, handler as object))}, declared as ${declared.method.toUpperCase()} ${declared.path}`,
        );
      }
      const parsers = parsersOf(controller, key);
      if (parsers.some((p) => p !== declared.query && p !== declared.body))
        strays.push(`${where}: parses with a schema its declaration does not document`);
      if (declared.query && !parsers.includes(declared.query))
        strays.push(`${where}: does not parse the declared query with @Query(declaration.query)`);
    }
  }
  return strays;
}

/**
 * WebDAV is served by a middleware at `/dav/<user>/<path>`, not by controllers: its routes are the
 * methods the middleware answers that OpenAPI can name (the others, PROPFIND and the rest, are in the
 * path's description).
 */
const DAV_SERVED = DAV_METHODS.filter((m) => (HTTP_METHODS as readonly string[]).includes(m.toLowerCase())).map(
  (m) => `${m} /dav/{user}/{path}`,
);

/** `GET /users/{user}` for every operation of the document. */
function operationsOf(doc: OpenApiDocument): Set<string> {
  const ops = new Set<string>();
  for (const [path, item] of Object.entries(doc.paths)) {
    for (const method of HTTP_METHODS) if (item[method]) ops.add(`${method.toUpperCase()} ${normalizeRoute(path)}`);
  }
  return ops;
}

function routeDiff(doc: OpenApiDocument, controllers: readonly (new (...args: never[]) => unknown)[]) {
  const routes = new Set([...routesOf(controllers), ...DAV_SERVED]);
  const ops = operationsOf(doc);
  return {
    undocumented: [...routes].filter((r) => !ops.has(r)).sort(),
    unrouted: [...ops].filter((o) => !routes.has(o)).sort(),
  };
}

function resolvePointer(doc: unknown, ref: string): unknown {
  assert.ok(ref.startsWith('#/'), `only local refs are used: ${ref}`);
  let node: unknown = doc;
  for (const raw of ref.slice(2).split('/')) {
    const key = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    if (node === null || typeof node !== 'object' || !(key in node)) return undefined;
    node = (node as Json)[key];
  }
  return node;
}

const deref = <T>(value: T | { $ref: string }): T =>
  value && typeof value === 'object' && '$ref' in value ? (resolvePointer(openApiDocument, value.$ref) as T) : value;

function* refsIn(node: unknown, at = '#'): Generator<[string, string]> {
  if (Array.isArray(node)) for (const [i, v] of node.entries()) yield* refsIn(v, `${at}/${i}`);
  else if (node && typeof node === 'object') {
    for (const [k, v] of Object.entries(node)) {
      if (k === '$ref' && typeof v === 'string') yield [at, v];
      else if (k !== 'examples' && k !== 'example') yield* refsIn(v, `${at}/${k}`);
    }
  }
}

function operations(doc: OpenApiDocument): [string, Operation][] {
  return Object.entries(doc.paths).flatMap(([path, item]) =>
    HTTP_METHODS.filter((m) => item[m]).map((m): [string, Operation] => [`${m.toUpperCase()} ${path}`, item[m]!]),
  );
}

const mediaExamples = (media: MediaType): unknown[] => Object.values(media.examples ?? {}).map((e) => e.value);

describe('OpenAPI document', () => {
  it('documents every gateway route, on the path and method the route has', () => {
    const { undocumented } = routeDiff(openApiDocument, GATEWAY_CONTROLLERS);
    assert.deepEqual(undocumented, [], 'routes missing from the OpenAPI document');
  });

  it('documents nothing that is not a route', () => {
    const { unrouted } = routeDiff(openApiDocument, GATEWAY_CONTROLLERS);
    assert.deepEqual(unrouted, [], 'OpenAPI operations no controller serves');
  });

  it('the route check notices a missing or an extra operation (self-check)', () => {
    const mutated = structuredClone(openApiDocument);
    delete mutated.paths['/users/{user}'].delete;
    delete mutated.paths['/openapi.json'];
    mutated.paths['/partner/nothing-here'] = { get: openApiDocument.paths['/partner/info'].get };
    const diff = routeDiff(mutated, GATEWAY_CONTROLLERS);
    assert.deepEqual(diff.undocumented, ['DELETE /users/{user}', 'GET /openapi.json']);
    assert.deepEqual(diff.unrouted, ['GET /partner/nothing-here']);
  });

  it('routes every controller handler by its declaration (no bare @Get/@Post)', () => {
    assert.ok(GATEWAY_CONTROLLERS.length > 20);
    assert.deepEqual(undeclaredHandlers(GATEWAY_CONTROLLERS), []);
  });

  it('the declaration check notices a bare route decorator, a route routed elsewhere and a query parsed with another schema (self-check)', () => {
    const Declared = z.object({ q: z.string().optional() });
    const declared = route({
      method: 'get',
      path: 'declared',
      query: Declared,
      operation: { operationId: 'x', tags: [], summary: 'x', responses: {} },
    });
    @Controller()
    class Stray {
      @Route(declared)
      fine(@Query(declared.query) _q: unknown): void {}
      @Get('bare')
      bare(): void {}
      @Get('elsewhere')
      @Route(declared)
      moved(@Query(declared.query) _q: unknown): void {}
      @Route(declared)
      other(@Query(z.object({})) _q: unknown): void {}
    }
    assert.deepEqual(undeclaredHandlers([Stray]), [
      'Stray.bare: no @Route declaration',
      'Stray.moved: routed as GET elsewhere, declared as GET declared',
      'Stray.other: parses with a schema its declaration does not document',
      'Stray.other: does not parse the declared query with @Query(declaration.query)',
    ]);
  });

  it('reads the routes over both interface-A mounts (and sees the ops endpoints at the root)', () => {
    const routes = routesOf(GATEWAY_CONTROLLERS);
    for (const r of [
      'GET /ping',
      'POST /users',
      'POST /groups/{id}',
      'GET /partner/billing',
      'POST /partner/billing',
      'GET /healthz',
      'GET /openapi.json',
    ]) {
      assert.ok(routes.has(r), `expected the gateway to route ${r}`);
    }
    assert.equal(normalizeRoute('apis/accounts/v1/users/:user/shares/:room'), '/users/{user}/shares/{room}');
    assert.equal(normalizeRoute('//groups/'), '/groups');
    assert.equal(normalizeRoute('/'), '/');
  });

  it('has no two paths that are the same route, and unique operationIds', () => {
    const seen = new Map<string, string>();
    for (const path of Object.keys(openApiDocument.paths)) {
      const key = normalizeRoute(path);
      assert.ok(!seen.has(key), `${path} and ${seen.get(key)} are the same route`);
      seen.set(key, path);
    }
    const ids = operations(openApiDocument).map(([, op]) => op.operationId);
    assert.equal(new Set(ids).size, ids.length, 'duplicate operationId');
  });

  it('is OpenAPI 3.1 and names both mounts', () => {
    assert.equal(openApiDocument.openapi, '3.1.0');
    assert.deepEqual(
      openApiDocument.servers.map((s) => s.url),
      ['/', '/apis/accounts/v1'],
    );
    assert.match(openApiDocument.info.description, /\/apis\/accounts\/v1\//);
    assert.deepEqual(openApiDocument.security, [{ basicAuth: [] }]);
    const basic = openApiDocument.components.securitySchemes.basicAuth;
    assert.equal(basic.type, 'http');
    assert.equal(basic.scheme, 'basic');
    for (const name of [
      'Plan',
      'Group',
      'UserRecord',
      'DeviceRecord',
      'UserShareRoom',
      'BrandShareEntry',
      'ClientRevisionCount',
      'PartnerSettings',
      'PartnerFeatures',
      'PartnerQuota',
      'PartnerInfo',
      'BillingInformationBody',
      'BillingView',
      'Error',
    ]) {
      assert.ok(openApiDocument.components.schemas[name], `schema ${name} missing`);
    }
  });

  it('resolves every $ref', () => {
    const refs = [...refsIn(openApiDocument)];
    assert.ok(refs.length > 40);
    for (const [at, ref] of refs)
      assert.notEqual(resolvePointer(openApiDocument, ref), undefined, `${at}: $ref ${ref} does not resolve`);
  });

  it('declares every path template parameter, and only those', () => {
    for (const [name, op] of operations(openApiDocument)) {
      const path = name.split(' ')[1];
      const inPath = [...path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]).sort();
      const params = (op.parameters ?? []).map((p) => deref<Parameter>(p));
      const declared = params
        .filter((p) => p.in === 'path')
        .map((p) => p.name)
        .sort();
      assert.deepEqual(declared, inPath, `${name}: path parameters`);
      for (const p of params.filter((q) => q.in === 'path'))
        assert.equal(p.required, true, `${name}: ${p.name} must be required`);
      for (const p of params) assert.ok(p.schema?.type, `${name}: parameter ${p.name} needs a typed schema`);
    }
  });

  it('gives every response a description, every body examples, and every operation an example', () => {
    for (const [name, op] of operations(openApiDocument)) {
      assert.ok(Object.keys(op.responses).length > 0, `${name}: no responses`);
      // (a redirect is the success of a route that only leads elsewhere)
      assert.ok(
        Object.keys(op.responses).some((s) => /^[23]0[0-8]$/.test(s) && s !== '304'),
        `${name}: no success response`,
      );
      let examples = 0;
      for (const [status, raw] of Object.entries(op.responses)) {
        const response = deref<Response>(raw);
        assert.ok(response?.description, `${name} ${status}: no description`);
        for (const [type, media] of Object.entries(response.content ?? {})) {
          assert.ok(mediaExamples(media).length > 0, `${name} ${status} ${type}: no example`);
          examples += mediaExamples(media).length;
        }
      }
      for (const [type, media] of Object.entries(op.requestBody?.content ?? {})) {
        assert.ok(mediaExamples(media).length > 0, `${name} request ${type}: no example`);
        examples += mediaExamples(media).length;
      }
      assert.ok(examples > 0, `${name}: no example at all`);
    }
  });

  // HTML pages for people (tag `pages`): a link's token is their credential, and they answer HTML
  const isPage = (op: Operation) => op.tags?.includes('pages') === true;

  it('authenticated operations can answer 401 with the Basic challenge and 429 with Retry-After; open ones are the ops endpoints and pages', () => {
    for (const [name, op] of operations(openApiDocument)) {
      if (op.security && op.security.length === 0) {
        if (isPage(op)) continue;
        // the ops endpoints, and interface B's public parts: logging in, share rooms (and the room links that lead to them), single-file links, the login page and its static files
        assert.match(
          name,
          /^(GET \/(healthz|readyz|metrics|openapi\.json)|POST \/browse\/login|POST \/storage\/\{user\}\/login|(GET|POST) \/storage\/\{user\}\/logout|(GET|POST) \/share\/\{path\}|GET \/link\/\{token\}\/\{name\}|GET \/browse\/(login|static\/\{name\}|share\/\{path\}))$/,
          `${name} is unauthenticated`,
        );
        continue;
      }
      const unauthorized = deref<Response>(op.responses['401']);
      assert.ok(unauthorized, `${name}: no 401`);
      assert.ok(unauthorized.headers?.['WWW-Authenticate'], `${name}: 401 without WWW-Authenticate`);
      assert.match(String(unauthorized.headers['WWW-Authenticate'].example), /^Basic /);
      assert.ok(deref<Response>(op.responses['503']), `${name}: no 503 (a service may not answer)`);
      const throttled = deref<Response>(op.responses['429']);
      assert.ok(throttled?.headers?.['Retry-After'], `${name}: no 429 with Retry-After (failed-login limit)`);
    }
  });

  it('every change (any method but GET, HEAD, OPTIONS) documents the 403 of a change sent by another site', () => {
    let changes = 0;
    for (const [name, op] of operations(openApiDocument)) {
      if (/^(GET|HEAD|OPTIONS) /.test(name)) continue;
      changes++;
      const forbidden = deref<Response>(op.responses['403']);
      assert.ok(forbidden, `${name}: no 403`);
      const examples = mediaExamples(forbidden.content!['application/json']) as Json[];
      assert.ok(
        examples.some((body) => /^this request came from another (origin|site)/.test(String(body.reason))),
        `${name}: the 403 has no cross-site example`,
      );
    }
    assert.ok(changes >= 30, `${changes} changes`);
  });

  it('every error response (and every 409) uses the Error schema', () => {
    for (const [name, op] of operations(openApiDocument)) {
      for (const [status, raw] of Object.entries(op.responses)) {
        // the health endpoints answer their own body, also when failing; pages answer a page
        if (Number(status) < 400 || name === 'GET /readyz' || name === 'GET /healthz') continue;
        if (isPage(op)) {
          // a page's form posted by another site is refused before the page, with the gateway's JSON 403 (http/cross-site.ts)
          if (status === '403' && '$ref' in raw && raw.$ref === '#/components/responses/CrossSite') continue;
          assert.ok(deref<Response>(raw).content?.['text/html'], `${name} ${status}: a page answers HTML`);
          continue;
        }
        const response = deref<Response>(raw);
        assert.equal(
          response.content?.['application/json']?.schema.$ref,
          '#/components/schemas/Error',
          `${name} ${status}: not the Error schema`,
        );
      }
      if (op.responses['409']) {
        const conflicts = mediaExamples(deref<Response>(op.responses['409']).content!['application/json']);
        for (const body of conflicts as Json[])
          assert.ok(
            Array.isArray(body.conflicts) || typeof body.code === 'string',
            `${name} 409 example without conflicts or code`,
          );
      }
    }
  });

  it('every example matches its schema', () => {
    const Ajv = ((ajv2020 as unknown as { default?: unknown }).default ?? ajv2020) as new (options: object) => {
      addSchema(schema: object): void;
      compile(schema: object): ((data: unknown) => boolean) & { errors?: unknown };
    };
    const ajv = new Ajv({ strict: false, validateFormats: false, allErrors: true });
    // OpenAPI points into components; ajv gets the schemas as one document of $defs.
    const rewrite = (schema: unknown) =>
      JSON.parse(JSON.stringify(schema).replaceAll('"#/components/schemas/', '"components#/$defs/'));
    ajv.addSchema({ $id: 'components', $defs: rewrite(openApiDocument.components.schemas) });
    const check = (where: string, media: MediaType) => {
      const validate = ajv.compile(rewrite(media.schema));
      for (const [key, example] of Object.entries(media.examples ?? {})) {
        assert.ok(validate(example.value), `${where} example ${key}: ${JSON.stringify(validate.errors)}`);
      }
    };
    let checked = 0;
    for (const [name, op] of operations(openApiDocument)) {
      for (const [status, raw] of Object.entries(op.responses)) {
        for (const [type, media] of Object.entries(deref<Response>(raw).content ?? {})) {
          check(`${name} ${status} ${type}`, media);
          checked++;
        }
      }
      for (const [type, media] of Object.entries(op.requestBody?.content ?? {})) {
        check(`${name} request ${type}`, media);
        checked++;
      }
    }
    for (const [name, response] of Object.entries(openApiDocument.components.responses)) {
      for (const media of Object.values(response.content ?? {})) check(`components.responses.${name}`, media);
    }
    assert.ok(checked > 60);
  });

  it('the schema check rejects a wrong example (self-check)', () => {
    const Ajv = ((ajv2020 as unknown as { default?: unknown }).default ?? ajv2020) as new (options: object) => {
      addSchema(schema: object): void;
      compile(schema: object): (data: unknown) => boolean;
    };
    const ajv = new Ajv({ strict: false, validateFormats: false });
    ajv.addSchema({
      $id: 'components',
      $defs: JSON.parse(
        JSON.stringify(openApiDocument.components.schemas).replaceAll('"#/components/schemas/', '"components#/$defs/'),
      ),
    });
    const validate = ajv.compile({ $ref: 'components#/$defs/UserRecord' });
    const user = mediaExamples(
      deref<Response>(openApiDocument.paths['/users/{user}'].get!.responses['200']).content!['application/json'],
    )[0] as Json;
    assert.ok(validate(user));
    const { email: _e, ...withoutEmail } = user;
    assert.ok(!validate(withoutEmail));
    assert.ok(!validate({ ...user, enabled: 'yes' }));
  });
});
