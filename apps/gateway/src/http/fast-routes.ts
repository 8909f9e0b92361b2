/**
 * Fast routes: a few hot routes answered without Express's router scan and Nest's per-request
 * pipeline, with the same answers.
 *
 * Every request still goes through Express (`app.handle`: its request and response objects) and
 * the gateway's global middlewares (metrics and the access log, transfer codings, NUL, cross-site
 * writes, HSTS); `FastRoutes.middleware` is the last of them. For a request a registered fast
 * route takes, it then runs the route's own handler (the guard and controller method the Nest
 * route runs, called directly) instead of trying the ~110 route patterns before it and building
 * Nest's execution context, guard and param pipeline; an error goes to the same exception filter
 * Nest would call. Anything else goes on to Express as before (`next()`).
 *
 * A fast route stands for one Nest route (its method and path exactly as registered). When the
 * app is up, `seal` finds that route's layer in Express's stack and every layer before it that
 * could take one of its requests first:
 * - a layer on the same path and method is a Nest middleware of that route: the registration
 *   must declare it (`middlewares`, with `declines` saying when it would answer): a count that
 *   does not match stops the start, so a middleware added later cannot be skipped silently;
 * - any other route whose path could match (its first segment is not a literal other than the
 *   route's) is tried at request time: when one matches, the request goes to Express, which
 *   serves it as before;
 * - a middleware (`app.use`) that could match stops the start: it belongs before
 *   `FastRoutes.middleware`, whose requests then pass it too.
 * The route's own pattern decides what it takes, with Express's matcher (case, decoding, trailing
 * slashes as Express has them); the request's `route` and `params` are set as Express's router
 * sets them (the metrics label the route's path).
 *
 * `BURROW_FAST_ROUTES=off` serves every request through Express's router (the e2e comparison runs
 * both side by side).
 */
import type { NextFunction, Request, RequestHandler, Response } from 'express';

/** What an Express 5 router layer looks like to us (`router` package, not exported as a type). */
interface Layer {
  route?: { path: string; methods: Record<string, boolean | undefined>; _handlesMethod(method: string): boolean };
  handle: unknown;
  name: string;
  /** the path it was registered with */
  rawPath?: unknown;
  match(path: string): false | { params: Record<string, string>; path: string };
}

interface ExpressApp {
  router: { stack: Layer[] };
}

export interface FastRouteDefinition {
  /** the Nest route's method (GET also serves HEAD, as Express does) */
  method: 'GET' | 'POST' | 'PUT' | 'DELETE' | 'PATCH';
  /** the route's path as Express has it (Nest's path with its leading slash: `/storage/*path`) */
  path: string;
  /** Nest middlewares bound to this very path and method (`forRoutes`), which `declines` accounts for */
  middlewares?: number;
  /** the request is one a middleware of the route (or anything else) answers: Express serves it */
  declines?(req: Request): boolean;
  /** what the Nest route does: its guards, then its handler (errors are thrown, the filter answers) */
  handle(req: Request, res: Response): Promise<void>;
}

interface SealedRoute {
  definition: FastRouteDefinition;
  method: string;
  layer: Layer;
  /** layers before it that could match a request it takes (tried at request time) */
  before: Layer[];
}

/** The first path segment when it is a literal (no parameter, wildcard or group), lower-cased. */
function literalHead(path: string): string | null {
  const match = /^\/([A-Za-z0-9._~-]+)(?:\/|$)/.exec(path);
  return match ? match[1].toLowerCase() : null;
}

export class FastRoutes {
  private readonly definitions: FastRouteDefinition[] = [];
  private routes: SealedRoute[] = [];
  private sealed = false;
  /** requests served by a fast route (tests read it) */
  served = 0;

  constructor(
    private readonly options: {
      enabled: boolean;
      onError: (error: unknown, req: Request, res: Response) => void;
      /** told of each request a fast route takes, with the route's path (the gateway counts them in /metrics) */
      onServed?: (path: string) => void;
    },
  ) {}

  /** Registers a route; before `seal`. */
  register(definition: FastRouteDefinition): void {
    if (this.sealed) throw new Error('fast routes are registered before the app is sealed');
    this.definitions.push(definition);
  }

  /** The Express middleware: register it with `app.use` after the global middlewares, before Nest's routes. */
  readonly middleware: RequestHandler = (req, res, next) => {
    if (this.routes.length === 0) return next();
    this.dispatch(req, res, next);
  };

  /** Finds each route's layer and what comes before it in the app's stack (once Nest has registered its routes). */
  seal(app: unknown): void {
    this.sealed = true;
    if (!this.options.enabled) return;
    const stack = (app as ExpressApp).router.stack;
    const own = stack.findIndex((layer) => layer.handle === this.middleware);
    if (own < 0) throw new Error('FastRoutes.middleware is not in the app');
    this.routes = this.definitions.map((definition) => {
      const method = definition.method.toLowerCase();
      const same = stack.filter(
        (layer, i) => i > own && layer.route?.path === definition.path && layer.route.methods[method],
      );
      const expected = (definition.middlewares ?? 0) + 1;
      if (same.length !== expected) {
        throw new Error(
          `fast route ${definition.method} ${definition.path}: expected ${expected - 1} middleware(s) and the route, found ${same.length} layers`,
        );
      }
      const layer = same[same.length - 1];
      const index = stack.indexOf(layer);
      const head = literalHead(definition.path);
      const before = stack.slice(own + 1, index).filter((other) => {
        if (same.includes(other)) return false;
        const otherPath = other.route?.path ?? (typeof other.rawPath === 'string' ? other.rawPath : null);
        const otherHead = otherPath === null ? null : literalHead(otherPath);
        // a route or middleware whose first segment is another literal never matches this route's requests
        if (head !== null && otherHead !== null && otherHead !== head) return false;
        if (!other.route) {
          throw new Error(
            `fast route ${definition.method} ${definition.path}: a middleware (${otherPath ?? other.name}) runs after FastRoutes.middleware and before the route: use it before FastRoutes.middleware`,
          );
        }
        return true;
      });
      return { definition, method: definition.method, layer, before };
    });
  }

  private dispatch(req: Request, res: Response, next: NextFunction): void {
    const method = req.method === 'HEAD' ? 'GET' : req.method;
    const path = req.path;
    for (const route of this.routes) {
      if (route.method !== method) continue;
      let match: ReturnType<Layer['match']>;
      try {
        match = route.layer.match(path);
        if (!match) continue;
        // the first layer that takes the request is Express's choice: one before the route wins
        if (
          route.before.some(
            (other) =>
              other.match(path) && (!other.route || req.method === 'HEAD' || other.route._handlesMethod(req.method)),
          )
        )
          break;
        if (route.definition.declines?.(req)) break;
      } catch {
        // a path Express's matcher refuses (bad percent-encoding): Express answers it as before
        break;
      }
      req.route = route.layer.route;
      req.params = match.params;
      this.served++;
      this.options.onServed?.(route.definition.path);
      route.definition.handle(req, res).catch((error: unknown) => {
        try {
          this.options.onError(error, req, res);
        } catch (failed) {
          // as when Nest's exception handler fails inside a route: Express's final handler answers
          next(failed);
        }
      });
      return;
    }
    next();
  }
}
