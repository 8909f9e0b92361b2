/**
 * Composition of the gateway: the HTTP app (Express under Nest, our own body handling), the bus
 * client, read access to the blob store, the error filter, request logging and metrics.
 * Stateless: any number can run.
 */
import { setListingPageSize } from './transfers/listing-page.js';
import { type BlobReader, type BlobWriter, verifyingReader } from '@burrow/blobs';
import { type DiskSpace, type Infrastructure, type Logger, ReplicaRegistry, SessionForgets } from '@burrow/runtime';
import type { INestApplication } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { ExpressAdapter } from '@nestjs/platform-express';
import express from 'express';
import type { Server } from 'node:http';
import type { Server as HttpsServer } from 'node:https';
import { DavLocks } from './dav/locks.js';
import { GatewayModule } from './gateway.module.js';
import { refuseNulInUrl } from './http/nul.js';
import { PartnerRpcClient } from './partner-access/partner-in-call.js';
import { refuseCrossSiteWrites } from './http/cross-site.js';
import {
  certificateHosts,
  loadTlsPair,
  reloadOnChange,
  startRedirectServer,
  strictTransportSecurity,
} from './http/tls.js';
import { HttpErrorFilter } from './http/error.filter.js';
import { SessionMemo } from './storage-access/session-memo.js';
import { Sessions } from './storage-access/sessions.js';
import { keySet, TokenSigner } from './storage-access/signed-tokens.js';
import { GatewayMetrics } from './ops/metrics.js';
import { cutOnlyIdleConnections } from './http/idle-timeout.js';
import { ConnectionLimiter, type RefusalReason } from './http/connection-limits.js';
import { loggedPath } from './http/logged-path.js';
import { refuseUnknownTransferCodings } from './http/transfer-coding.js';
import { FastRoutes } from './http/fast-routes.js';
import { registerFastRoutes } from './gateway.fast-routes.js';

/** Requests that make no span: an orchestrator's health checks and Prometheus's scrapes would fill the traces. */
const UNTRACED_PATHS = new Set(['/healthz', '/readyz', '/metrics']);

export interface RunningGateway {
  app: INestApplication;
  server: Server;
  port: number;
  /** HTTPS on `port` (BURROW_TLS_CERT/KEY) */
  tls: boolean;
  /** the plain-HTTP port that redirects to https, when one was asked for */
  redirectPort?: number;
  close(): Promise<void>;
}

export interface GatewayOptions {
  port?: number;
  /** milliseconds since the epoch for token expiry (tests inject a clock) */
  now?: () => number;
}

/**
 * The blob store as the gateway uses it: every whole read checked against the blob's hash on the
 * way (a download of bytes that do not match is cut short, and the operator hears of it; a blob
 * that read back right is not hashed again for BURROW_BLOB_REVERIFY_AFTER_MS unless its file
 * changed), and,
 * in the background, what uploads of a process that died here left removed at once.
 */
async function openBlobs(infra: Infrastructure, log: Logger, disk: DiskSpace): Promise<BlobReader & BlobWriter> {
  const blobs = verifyingReader(
    roomChecking(await infra.blobs(), disk),
    (error) =>
      log.error(
        { blob: error.key, actual: error.actual },
        'stored bytes do not match their hash: download cut short (admin verify-blobs quarantines such blobs)',
      ),
    { reverifyAfterMs: infra.config.blobReverifyAfterMs },
  );
  // logged once per start, whether or not it found anything: operators (and tests) see it has run
  void blobs.sweepAbandoned().then(
    (removed) => log.info({ removed }, 'swept what uploads of processes that no longer run left'),
    (error: unknown) =>
      log.warn(
        { err: { message: (error as Error).message } },
        'removing what dead uploads left failed; the blob reaper will',
      ),
  );
  return blobs;
}

/**
 * Every put (an upload's bytes, through the storage interface or WebDAV) first checks the data
 * directory's free space: below the threshold it is refused with 507 before a byte is stored, so
 * the event log keeps room for the small writes (issue 17, defect 4).
 */
function roomChecking<B extends BlobReader & BlobWriter>(blobs: B, disk: DiskSpace): B {
  const put: BlobWriter['put'] = async (source, options) => {
    await disk.ensureRoom();
    return blobs.put(source, options);
  };
  return new Proxy(blobs, {
    get(target, property) {
      if (property === 'put') return put;
      const value = Reflect.get(target, property, target) as unknown;
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}

/**
 * The per-client-address limits (http/connection-limits.ts): a socket from an address Express
 * trusts as a proxy is not limited; refusals are counted in /metrics and logged at most once a
 * minute per kind.
 */
function connectionLimiter(
  infra: Infrastructure,
  trustProxy: (address: string, hop: number) => boolean,
  metrics: GatewayMetrics,
  log: Logger,
): ConnectionLimiter {
  const lastLogged = new Map<RefusalReason, number>();
  return new ConnectionLimiter(
    infra.config.connectionLimits,
    (address) => trustProxy(address, 0),
    (reason, address) => {
      metrics.connectionsRefused.inc({ reason });
      const now = Date.now();
      if ((lastLogged.get(reason) ?? 0) > now - 60_000) return;
      lastLogged.set(reason, now);
      log.warn(
        { reason, address, limits: infra.config.connectionLimits },
        'a client address reached a connection limit: refused (logged once a minute; see burrow_http_connections_refused_total)',
      );
    },
  );
}

export async function startGateway(infra: Infrastructure, options: GatewayOptions = {}): Promise<RunningGateway> {
  const log = infra.logger('gateway');
  setListingPageSize(infra.config.listingPageSize);
  const client = infra.client('gateway');
  await client.connect();
  const rpc = new PartnerRpcClient(client, infra.config.rpcTimeoutMs, { log });
  const metrics = new GatewayMetrics();

  const server = express();
  // made first: its constructor adds Nest's request-hook middleware, which every request (a fast route's too) passes
  const adapter = new ExpressAdapter(server);
  server.disable('x-powered-by');
  server.set('etag', false);
  server.set('query parser', 'simple');
  // Behind the edge proxy the socket address is the proxy's: trust its X-Forwarded-For only when
  // configured (BURROW_TRUST_PROXY, e.g. "uniquelocal" inside the compose network).
  if (infra.config.trustProxy) server.set('trust proxy', infra.config.trustProxy);
  const limiter = connectionLimiter(
    infra,
    server.get('trust proxy fn') as (address: string, hop: number) => boolean,
    metrics,
    log,
  );
  // with tracing on (OTEL_EXPORTER_OTLP_ENDPOINT): a server span per request, around everything below; health checks and scrapes are left out
  if (infra.tracing) server.use(infra.tracing.httpServer({ skip: (path) => UNTRACED_PATHS.has(path) }));
  server.use((req, res, next) => {
    const started = process.hrtime.bigint();
    res.on('finish', () => {
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      const route = (req.route?.path as string | undefined) ?? 'unmatched';
      metrics.observeRequest(req.method, route, res.statusCode, seconds);
      // the access line's fields (the path parsed and redacted) only when it is written
      if (log.isLevelEnabled('debug')) {
        log.debug(
          { method: req.method, path: loggedPath(req.path), status: res.statusCode, ms: Math.round(seconds * 1000) },
          'request',
        );
      }
    });
    next();
  });
  server.use(limiter.middleware);
  server.use(refuseUnknownTransferCodings);
  server.use(refuseNulInUrl);
  server.use(refuseCrossSiteWrites(infra.config.publicUrl));
  server.use(strictTransportSecurity);
  // the hottest routes (downloads) skip the router's scan and Nest's pipeline, with the same answers
  const filter = new HttpErrorFilter(log);
  const fast = new FastRoutes({
    enabled: infra.config.fastRoutes,
    onError: (error, _req, res) => filter.reply(error, res),
    onServed: (route) => metrics.fastRoutes.inc({ route }),
  });
  server.use(fast.middleware);

  const signer = new TokenSigner(keySet(infra.secret), options.now);
  const sessions = new Sessions(
    signer,
    () => infra.durableKeyValues(),
    new SessionMemo({ ttlMs: infra.config.sessionMemoMs }),
  );
  const disk = infra.diskSpace();
  const blobs = await openBlobs(infra, log, disk);
  const deps = {
    rpc,
    blobs,
    disk,
    log,
    busStatus: infra.busStatus,
    signer,
    sessions,
    publicUrl: infra.config.publicUrl,
  };
  const locks = new DavLocks(() => infra.keyValues());
  const events = { heartbeatMs: infra.config.sse.heartbeatMs, maxStreamMs: infra.config.sse.maxSeconds * 1000 };
  const tls = infra.config.tls;
  const tlsOptions = tls ? loadTlsPair(tls) : null;
  // the names the redirect port may send a client to (the certificate's, as it is renewed)
  let tlsHosts = tlsOptions ? certificateHosts(tlsOptions.cert) : [];
  // every replica's reports (/readyz lists them), and this gateway's own
  const broadcasts = await infra.broadcasts();
  const replicas = new ReplicaRegistry(broadcasts);
  // what accounts confirmed, remembered briefly: forgotten when a write says so (session-memo.ts); a logout tells every replica
  const stopForgetting = sessions.memo.listen(broadcasts);
  const forgets = new SessionForgets(broadcasts, replicas);
  sessions.forgets = forgets;
  await infra.reportHealth('gateway', async () => {
    const bus = infra.busStatus.snapshot();
    return {
      service: 'gateway',
      ok: bus.connected,
      position: 0,
      ...(bus.connected ? {} : { reason: 'bus disconnected' }),
    };
  });
  // remembering starts once this replica's first report has had time to reach every writer, which then waits for it
  sessions.memo.activate(infra.config.replicaReportMs);
  const app = await NestFactory.create(GatewayModule.forRoot(deps, metrics, locks, events, replicas), adapter, {
    bodyParser: false,
    logger: false,
    // HTTPS on PORT when BURROW_TLS_CERT/KEY are set (http/tls.ts); else plain HTTP behind the edge proxy
    ...(tlsOptions ? { httpsOptions: tlsOptions } : {}),
  });
  app.useGlobalFilters(filter);
  registerFastRoutes(fast, app);
  await app.init();
  fast.seal(server);
  const port = options.port ?? infra.config.port;
  const httpServer = app.getHttpServer() as Server;
  cutOnlyIdleConnections(httpServer, infra.config.idleTimeoutSeconds);
  limiter.attach(httpServer);
  await app.listen(port, '0.0.0.0');
  const address = httpServer.address();
  const actualPort = typeof address === 'object' && address ? address.port : port;
  // with httpsOptions Nest made an https.Server (the same object as httpServer, typed by what its other users need)
  const stopReloading = tls
    ? reloadOnChange(
        app.getHttpServer() as HttpsServer,
        tls,
        log,
        1000,
        (options) => (tlsHosts = certificateHosts(options.cert)),
      )
    : () => undefined;
  const redirect =
    tls && infra.config.httpRedirectPort !== undefined
      ? await startRedirectServer(
          infra.config.httpRedirectPort,
          actualPort,
          infra.config.publicUrl,
          () => tlsHosts,
          log,
        )
      : null;
  const redirectAddress = redirect?.address();
  log.info({ port: actualPort, mode: infra.mode, tls: Boolean(tls) }, 'gateway listening');
  return {
    app,
    server: httpServer,
    port: actualPort,
    tls: Boolean(tls),
    redirectPort: typeof redirectAddress === 'object' && redirectAddress ? redirectAddress.port : undefined,
    close: async () => {
      stopReloading();
      if (redirect) await new Promise((resolve) => redirect.close(resolve));
      await app.close();
      stopForgetting();
      forgets.close();
      replicas.close();
      await rpc.close();
    },
  };
}
