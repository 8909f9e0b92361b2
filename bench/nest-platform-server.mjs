#!/usr/bin/env node
/**
 * One contender of `bench:platforms`: the same three routes served by a bare Node `http` server, by
 * Nest on Express or by Nest on Fastify, in their own process (so the server's CPU is its own):
 * - `GET /users/:name` the JSON of one user record (~500 bytes) behind a guard that reads the
 *   Authorization header, as interface A's routes are;
 * - `GET /blobs/:name` a file's bytes, streamed with its length (a download);
 * - `PUT /blobs/:name` the request body streamed into a file with backpressure, fsync-free (an
 *   upload's framework cost, not the disk's).
 * No bus, no session, no catalog: what each platform costs around the same handler.
 *
 *   node bench/nest-platform-server.mjs <bare|express|fastify> <folder>   (prints its port)
 */
import 'reflect-metadata';
import { createReadStream, createWriteStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { createServer } from 'node:http';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';

const [platform, folder] = process.argv.slice(2);
const USER = {
  username: 'user-0001',
  name: 'User One',
  email: 'user-0001@example.com',
  plan_id: 2,
  plan_name: 'Business',
  group_id: 3,
  enabled: true,
  webapi_enable: true,
  quota_bytes: 107374182400,
  bytes_stored: 1234567890,
  devices: 2,
  created: 1764100000,
  last_login: 1764190000,
  last_commit: 1764190100,
  sharing_enabled: true,
  share_link_ttl: 4320,
  lang: 'en',
  notes: '',
};
const userFor = (name) => ({ ...USER, username: name });
const blobPath = (name) => join(folder, name.replace(/[^A-Za-z0-9._-]/g, '_'));

async function bare() {
  const server = createServer(async (req, res) => {
    const url = new URL(req.url, 'http://x');
    const [, kind, name] = url.pathname.split('/');
    try {
      if (kind === 'users' && req.method === 'GET') {
        if (!req.headers.authorization) return void res.writeHead(401).end();
        const body = JSON.stringify(userFor(name));
        return void res
          .writeHead(200, {
            'Content-Type': 'application/json; charset=utf-8',
            'Content-Length': Buffer.byteLength(body),
          })
          .end(body);
      }
      if (kind === 'blobs' && req.method === 'GET') {
        const { size } = await stat(blobPath(name));
        res.writeHead(200, { 'Content-Type': 'application/octet-stream', 'Content-Length': size });
        return void (await pipeline(createReadStream(blobPath(name), { highWaterMark: 1024 * 1024 }), res));
      }
      if (kind === 'blobs' && req.method === 'PUT') {
        await pipeline(req, createWriteStream(blobPath(name)));
        return void res.writeHead(204).end();
      }
      res.writeHead(404).end();
    } catch (error) {
      if (!res.headersSent) res.writeHead(500).end(String(error));
      else res.destroy();
    }
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return server.address().port;
}

/** The same controller for both Nest platforms (decorators applied by hand: this file is plain JS). */
async function nest(kind) {
  const common = await import('@nestjs/common');
  const { NestFactory } = await import('@nestjs/core');
  const {
    Controller,
    Get,
    Put,
    Param,
    Req,
    Res,
    UseGuards,
    Module,
    HttpCode,
    Header,
    StreamableFile,
    UnauthorizedException,
  } = common;

  class AuthGuard {
    canActivate(context) {
      const req = context.switchToHttp().getRequest();
      if (!req.headers.authorization) throw new UnauthorizedException();
      return true;
    }
  }
  class BenchController {
    user(name) {
      return userFor(name);
    }
    async download(name, res) {
      const file = blobPath(name);
      const { size } = await stat(file);
      return new StreamableFile(createReadStream(file, { highWaterMark: 1024 * 1024 }), {
        type: 'application/octet-stream',
        length: size,
      });
    }
    async upload(name, req) {
      // Express hands over Node's request; Fastify its wrapper, whose `raw` is Node's request
      await pipeline(req.raw ?? req, createWriteStream(blobPath(name)));
    }
  }
  const method = (name, ...decorators) => {
    const descriptor = Object.getOwnPropertyDescriptor(BenchController.prototype, name);
    for (const d of decorators) d(BenchController.prototype, name, descriptor);
  };
  Param('name')(BenchController.prototype, 'user', 0);
  method('user', Get('users/:name'), UseGuards(AuthGuard));
  Param('name')(BenchController.prototype, 'download', 0);
  Res({ passthrough: true })(BenchController.prototype, 'download', 1);
  method('download', Get('blobs/:name'));
  Param('name')(BenchController.prototype, 'upload', 0);
  Req()(BenchController.prototype, 'upload', 1);
  method('upload', Put('blobs/:name'), HttpCode(204), Header('Cache-Control', 'no-store'));
  Reflect.defineMetadata('design:paramtypes', [String], BenchController.prototype, 'user');
  Controller()(BenchController);
  class BenchModule {}
  Module({ controllers: [BenchController] })(BenchModule);

  let app;
  if (kind === 'fastify') {
    const { FastifyAdapter } = await import('@nestjs/platform-fastify');
    const adapter = new FastifyAdapter({ bodyLimit: 1024 * 1024 });
    // leave every body unread: the handler streams it (Fastify would otherwise parse or refuse it)
    adapter.getInstance().addContentTypeParser('*', (_req, _payload, done) => done(null));
    app = await NestFactory.create(BenchModule, adapter, { logger: false, bodyParser: false });
  } else {
    app = await NestFactory.create(BenchModule, { logger: false, bodyParser: false });
  }
  await app.listen(0, '127.0.0.1');
  return app.getHttpServer().address().port;
}

const port = platform === 'bare' ? await bare() : await nest(platform);
console.log(port);
