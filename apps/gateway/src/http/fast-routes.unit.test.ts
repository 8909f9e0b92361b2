import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import express, { type Request, type Response } from 'express';
import supertest from 'supertest';
import { FastRoutes } from './fast-routes.js';

/**
 * An app laid out as the gateway's: the fast middleware, then a specific route on the same prefix,
 * a page middleware bound to the fast route's path (Nest's `forRoutes`), the route itself, others.
 */
function app(
  options: {
    enabled?: boolean;
    middlewares?: number;
    extraMiddleware?: boolean;
    lateMiddleware?: string;
    failingFilter?: boolean;
  } = {},
) {
  const server = express();
  server.set('query parser', 'simple');
  const errors: unknown[] = [];
  const fast = new FastRoutes({
    enabled: options.enabled ?? true,
    onError: (error, _req, res) => {
      errors.push(error);
      if (options.failingFilter) throw new Error('the filter failed');
      res.status(500).json({ reason: (error as Error).message });
    },
  });
  const labels: string[] = [];
  server.use((req, res, next) => {
    res.on('finish', () => labels.push(`${req.method} ${(req.route?.path as string | undefined) ?? 'unmatched'}`));
    next();
  });
  server.use(fast.middleware);
  if (options.lateMiddleware) server.use(options.lateMiddleware, (_req, _res, next) => next());
  server.get('/files/:user/shares', (_req, res) => void res.json({ by: 'shares' }));
  server.get('/files/*path', (req, res, next) => (req.query.page ? void res.json({ by: 'page' }) : next()));
  if (options.extraMiddleware) server.get('/files/*path', (_req, _res, next) => next());
  server.get('/files/*path', (req: Request, res: Response) => void res.json({ by: 'express', params: req.params }));
  server.put('/files/*path', (_req, res) => void res.json({ by: 'express-put' }));
  server.get('/other', (_req, res) => void res.json({ by: 'other' }));
  fast.register({
    method: 'GET',
    path: '/files/*path',
    middlewares: options.middlewares ?? 1,
    declines: (req) => req.query.page !== undefined,
    handle: async (req, res) => {
      if (req.query.fail) throw new Error('handler failed');
      res.json({ by: 'fast', params: req.params, route: (req.route as { path: string }).path });
    },
  });
  fast.seal(server);
  return { client: supertest(server), fast, labels, errors };
}

describe('FastRoutes', () => {
  it("serves its route's requests with Express's params and route, and sends the rest on", async () => {
    const { client, fast, labels } = app();
    const got = await client.get('/files/a/b%20c/d.txt');
    assert.deepEqual(got.body, { by: 'fast', params: { path: ['a', 'b c', 'd.txt'] }, route: '/files/*path' });
    assert.equal(fast.served, 1);
    // the same path, upper case: Express matches without case, and so does the fast route
    assert.equal((await client.get('/FILES/a/b')).body.by, 'fast');
    // HEAD is served as the GET route, as Express does
    const head = await client.head('/files/a/b');
    assert.equal(head.status, 200);
    assert.equal(fast.served, 3);
    // a route before it on the same prefix takes its own requests
    assert.deepEqual((await client.get('/files/u/shares')).body, { by: 'shares' });
    assert.equal((await client.head('/files/u/shares')).status, 200);
    // the middleware bound to the path answers what the route declines
    assert.deepEqual((await client.get('/files/a/b?page=1')).body, { by: 'page' });
    // another method, another path: Express
    assert.deepEqual((await client.put('/files/a/b')).body, { by: 'express-put' });
    assert.deepEqual((await client.get('/other')).body, { by: 'other' });
    // a path Express's matcher refuses: Express answers as it always did
    assert.equal((await client.get('/files/%E0%A4%A')).status, 400);
    assert.equal(fast.served, 3);
    assert.deepEqual(labels, [
      'GET /files/*path',
      'GET /files/*path',
      'HEAD /files/*path',
      'GET /files/:user/shares',
      'HEAD /files/:user/shares',
      'GET /files/*path',
      'PUT /files/*path',
      'GET /other',
      'GET unmatched',
    ]);
  });

  it("gives a handler's error to the error handler", async () => {
    const { client, errors } = app();
    const res = await client.get('/files/a?fail=1');
    assert.equal(res.status, 500);
    assert.deepEqual(res.body, { reason: 'handler failed' });
    assert.equal(errors.length, 1);
  });

  it("leaves an error of the error handler to Express's final handler", async () => {
    const { client, errors } = app({ failingFilter: true });
    const res = await client.get('/files/a?fail=1');
    assert.equal(res.status, 500);
    assert.equal(errors.length, 1);
  });

  it('serves everything through Express when turned off', async () => {
    const { client, fast } = app({ enabled: false });
    assert.deepEqual((await client.get('/files/a/b')).body, { by: 'express', params: { path: ['a', 'b'] } });
    assert.equal(fast.served, 0);
  });

  it('refuses to start when the middlewares on its path are not the ones it accounts for', () => {
    assert.throws(() => app({ middlewares: 0 }), /expected 0 middleware\(s\) and the route, found 2 layers/);
    assert.throws(() => app({ extraMiddleware: true }), /expected 1 middleware\(s\) and the route, found 3 layers/);
    // a middleware after FastRoutes.middleware that could run for the route's requests
    assert.throws(
      () => app({ lateMiddleware: '/' }),
      /a middleware \(\/\) runs after FastRoutes.middleware and before the route/,
    );
    assert.throws(() => app({ lateMiddleware: '/files' }), /a middleware \(\/files\) runs after/);
    assert.equal(app({ lateMiddleware: '/dav' }).fast.served, 0, 'one on another prefix never runs for them');
  });
});
