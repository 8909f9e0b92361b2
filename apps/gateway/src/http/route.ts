/**
 * A route declared once, beside its controller: the method and path Nest serves it on, the query
 * and body schemas its handler parses with, and the prose and examples of its OpenAPI operation.
 * `@Route(declaration)` is the handler's Nest route decorator (instead of `@Get`/`@Post`/...) and
 * records the declaration on the handler; gateway.openapi.ts builds the document's `paths` from
 * those records, so a route's path, method and schemas are written in one place only.
 */
import type { z } from '@burrow/contracts';
import { applyDecorators, RequestMapping, RequestMethod, SetMetadata } from '@nestjs/common';
import { PATH_METADATA } from '@nestjs/common/constants.js';
import type { Example, HttpMethod, Operation, Parameter, PathItem, RequestBody } from './openapi-types.js';

/** Notes on one query parameter of the route's query schema (else its description comes from the schema). */
export interface QueryNote {
  description?: string;
  example?: unknown;
  required?: boolean;
}

/** The prose and examples of a JSON body whose schema is the route's `body`. */
export interface BodyProse {
  description: string;
  examples: Record<string, Example>;
  /** default true */
  required?: boolean;
}

/** What the OpenAPI operation says beyond the declared schemas. */
export interface OperationProse extends Omit<Operation, 'parameters' | 'requestBody'> {
  /** path parameters, then (after the query schema's) headers and any query parameter not in `query` */
  parameters?: Parameter[];
  /** per-parameter notes on the route's `query` schema */
  queryNotes?: Record<string, QueryNote>;
  /** prose for the route's `body` schema, or the whole request body when it is not one JSON schema */
  requestBody?: BodyProse | RequestBody;
}

export interface RouteDeclaration<
  Q extends z.ZodObject | undefined = z.ZodObject | undefined,
  B extends z.ZodType | undefined = z.ZodType | undefined,
> {
  method: HttpMethod;
  /** the Nest path relative to the controller's mount (`groups/:id`, `storage/*path`); a trailing slash is kept in the document */
  path: string;
  /** the query schema the handler parses with: `@Query(ROUTES.x.query)` */
  query: Q;
  /** the JSON body schema the handler parses with: `@Body(ROUTES.x.body)` */
  body: B;
  operation: OperationProse;
  /** fields of the document's path item (summary, description, servers); on one route of the path */
  pathItem?: Omit<PathItem, HttpMethod>;
}

/** A route declaration (see `RouteDeclaration`); `query` and `body` keep their zod types for the handler. */
export function route<Q extends z.ZodObject | undefined = undefined, B extends z.ZodType | undefined = undefined>(
  declaration: Omit<RouteDeclaration<Q, B>, 'query' | 'body'> & { query?: Q; body?: B },
): RouteDeclaration<Q, B> {
  return { ...declaration, query: declaration.query as Q, body: declaration.body as B };
}

const ROUTE_KEY = 'burrow:route';
const NEST_METHODS: Record<HttpMethod, RequestMethod> = {
  get: RequestMethod.GET,
  put: RequestMethod.PUT,
  post: RequestMethod.POST,
  delete: RequestMethod.DELETE,
  options: RequestMethod.OPTIONS,
  head: RequestMethod.HEAD,
  patch: RequestMethod.PATCH,
  trace: RequestMethod.ALL,
};

/** The handler's route: Nest's `RequestMapping` for the declared method and path, and the declaration for the document. */
export function Route(declaration: RouteDeclaration): MethodDecorator {
  if (declaration.method === 'trace') throw new Error(`${declaration.path}: TRACE is not served`);
  return applyDecorators(
    RequestMapping({ path: declaration.path, method: NEST_METHODS[declaration.method] }),
    SetMetadata(ROUTE_KEY, declaration),
  );
}

/** The declaration a handler was decorated with (undefined for a handler without `@Route`). */
export function routeOf(handler: unknown): RouteDeclaration | undefined {
  return typeof handler === 'function'
    ? (Reflect.getMetadata(ROUTE_KEY, handler) as RouteDeclaration | undefined)
    : undefined;
}

/** A controller class's mounts (its `@Controller` paths) and its handlers, in the order the class declares them. */
export function controllerHandlers(controller: abstract new (...args: never[]) => unknown): {
  mounts: string[];
  handlers: [string, unknown][];
} {
  const raw = Reflect.getMetadata(PATH_METADATA, controller) as string | string[] | undefined;
  const mounts = raw === undefined ? [''] : [raw].flat().map(String);
  const prototype = controller.prototype as Record<string, unknown>;
  const handlers = Object.getOwnPropertyNames(prototype)
    .filter((key) => key !== 'constructor')
    .map((key): [string, unknown] => [key, prototype[key]])
    .filter(([, handler]) => typeof handler === 'function');
  return { mounts, handlers };
}
