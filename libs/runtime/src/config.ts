/**
 * Configuration comes from the environment only, validated once at start. Every problem is
 * reported together, each naming its variable, and the app stops.
 */
import { accessSync, constants } from 'node:fs';
import { join, resolve } from 'node:path';
import {
  DEAD_PROPERTIES_MAX_BYTES,
  DEAD_PROPERTIES_PER_USER_MAX_BYTES,
  DEAD_PROPERTY_WRITES_PER_DAY_MAX_BYTES,
} from '@burrow/contracts';
import { DEFAULT_AGGREGATE_CACHE_STREAMS } from '@burrow/eventsourcing';
import { chooseSqliteDriver } from '@burrow/sqlite';
import { tracingProblems } from '@burrow/tracing';
import { SESSION_MEMO_TTL_MS } from './session-forgets.js';

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`invalid configuration:\n  - ${problems.join('\n  - ')}`);
    this.name = 'ConfigError';
  }
}

export interface BurrowConfig {
  port: number;
  dataDir: string;
  partnerUsername?: string;
  partnerPassword?: string;
  secret?: string;
  publicUrl?: string;
  natsUrl?: string;
  eventstoreUrl?: string;
  mongodbUrl?: string;
  minio?: { url: string; accessKey: string; secretKey: string; bucket: string };
  logLevel: string;
  rpcTimeoutMs: number;
  plansFile?: string;
  /** Express `trust proxy` value: which hops' X-Forwarded-For to believe for the client address */
  trustProxy?: string;
  /** multi-step writes unfinished for this long are taken to have crashed and are recovered */
  recoveryGraceSeconds: number;
  /** how often each service looks for unfinished multi-step writes */
  recoveryIntervalMs: number;
  /** how often the storage catalog's purger runs (it also runs shortly after start) */
  purgeIntervalMs: number;
  /** images the storage catalog renders previews of at once (0: no previews) */
  previewConcurrency: number;
  /** how often the storage catalog's blob reaper runs (it also runs shortly after start) */
  blobReapIntervalMs: number;
  /** the reaper leaves blobs put less than this long ago (an upload between its put and its commit) */
  blobReapGraceSeconds: number;
  /** how often the storage catalog scrubs the blob store (reads every blob, checks it): 0, the default, never */
  blobScrubIntervalMs: number;
  /** the periodic scrub reads at most this many MB (10^6 bytes) per second (0: no limit) */
  blobScrubMbPerSecond: number;
  /** how often a storage catalog writes the share room visits it counted (one event per room visited) */
  shareAccessFlushMs: number;
  /** WebDAV dead properties: bytes one user may hold, and write per UTC day */
  davProperties: { maxBytesPerUser: number; maxWriteBytesPerDay: number };
  /**
   * The gateway checks every whole download against the blob's hash; a blob that read back right
   * is not hashed again for this long unless its file changed (0: every whole download is hashed).
   */
  blobReverifyAfterMs: number;
  /** the gateway answers its hottest routes (file downloads) without Express's router and Nest's pipeline (same answers) */
  fastRoutes: boolean;
  /** how often every process sends its health on the bus (`burrow.replicas.report`), for the gateways' /readyz */
  replicaReportMs: number;
  /** how long a gateway remembers a storage login or session accounts confirmed (0: not at all; at most SESSION_MEMO_TTL_MS) */
  sessionMemoMs: number;
  /** a port on which this process serves its own /healthz, /readyz and /metrics (unset: none; 0: any free one) */
  opsPort?: number;
  /** where the generated password of the first partner is written (multi-process first start without BURROW_PARTNER_*) */
  partnerPasswordFile: string;
  /**
   * Fault injection for tests only: a multi-step write step (`CreateUser:allocate:after`) at which
   * the service process kills itself with SIGKILL, as a crash would.
   */
  faultKillAt?: string;
  /** entries the gateway asks the storage catalog for per page of a folder listing (a listing streams page after page) */
  listingPageSize: number;
  /** scrypt's cost N for password hashes made from now on (a power of two; stored hashes keep theirs) */
  passwordScryptN: number;
  /** aggregate states each process keeps folded (streams, least recently used dropped; 0: none) */
  aggregateCacheStreams: number;
  /** SQLite event store durability: `full` (fsync every commit) unless relaxed to `normal` */
  sqliteSynchronous: 'full' | 'normal';
  /**
   * Where the read models live without MONGODB_URL: `sqlite` files under `<dataDir>/read-models/`
   * (resumed from their checkpoint at start; the default without NATS_URL), or `memory` (rebuilt
   * from the whole event store at every start; the default with NATS_URL)
   */
  readModels: 'sqlite' | 'memory';
  /** read models built from another event store than the one configured: rebuild them, or refuse to start */
  readModelsOnStoreMismatch: 'rebuild' | 'refuse';
  /** where mail goes: an SMTP server, else `.eml` files under the data directory */
  smtpUrl?: string;
  /** the sender of Burrow's mail (`SMTP_FROM`: `address` or `Name <address>`) */
  mailFrom: { name?: string; address: string };
  /** how long a set-password link (activation email) stays usable, in seconds */
  setPasswordLinkTtlSeconds: number;
  /** activation emails: at most `perUser` to one user and `perPartner` per partner within `windowSeconds` */
  activationMail: { perUser: number; perPartner: number; windowSeconds: number };
  /** `.eml` files of the mail folder (no SMTP_URL) older than this many days are deleted (0: kept) */
  mailOutboxMaxAgeDays: number;
  /**
   * A gateway connection on which no byte moves, either way, for this long is cut. There is no
   * limit on a request's total time: an upload, download or zip lasts as long as bytes flow.
   */
  idleTimeoutSeconds: number;
  /**
   * What one client address may hold of a gateway (issue 33, item 7): open connections, connections
   * whose request headers have not all arrived (0 for either: no limit), and how long those headers may take.
   */
  connectionLimits: { perAddress: number; unfinishedHeadersPerAddress: number; headersTimeoutSeconds: number };
  /**
   * Below this much free space (MiB) on the data directory's file system /readyz reports low disk
   * and uploads are refused with 507 (0: never); unset: the smaller of 512 MiB and 2% of it.
   */
  minFreeDiskMb?: number;
  /** webhook delivery (accounts): BURROW_WEBHOOK_* */
  webhooks: {
    /** http:// endpoints allowed (else https only) */
    allowHttp: boolean;
    /** loopback, private and link-local targets allowed (else refused: no SSRF into the operator's network) */
    allowPrivateAddresses: boolean;
    /** first retry delay; doubles per failed attempt up to an hour */
    retryBaseMs: number;
    /** how long a delivery is retried (at least a day) */
    retryWindowSeconds: number;
    /** an endpoint failing (no success) for this long is disabled */
    disableAfterSeconds: number;
    /** the longest one delivery attempt takes, connection and answer included */
    timeoutMs: number;
    /** deliveries in flight at once per accounts process */
    concurrency: number;
    /** of which to one partner's endpoints, at most (its slow receivers hold no one else's slots) */
    concurrencyPerPartner: number;
    /** of which to one endpoint, at most */
    concurrencyPerEndpoint: number;
  };
  /**
   * HTTPS on PORT without a proxy (gateway, standalone): BURROW_TLS_CERT and BURROW_TLS_KEY, PEM
   * files, reloaded when they change; absent: plain HTTP (TLS at the edge proxy).
   */
  tls?: { cert: string; key: string };
  /** BURROW_HTTP_REDIRECT_PORT: a plain-HTTP port that only redirects to https (with tls only) */
  httpRedirectPort?: number;
  /** the feed's Server-Sent Events stream (gateway) */
  sse: {
    /** a comment line at least this often keeps proxies from cutting an idle stream */
    heartbeatMs: number;
    /** a stream ends after this long (the client reconnects with Last-Event-ID, re-authenticating) */
    maxSeconds: number;
  };
}

type Env = Record<string, string | undefined>;

const URL_SCHEMES: Record<string, string[]> = {
  BURROW_PUBLIC_URL: ['http:', 'https:'],
  NATS_URL: ['nats:', 'tls:', 'ws:', 'wss:'],
  // KurrentDB (EventStoreDB) or PostgreSQL: the scheme picks the adapter (infrastructure.ts)
  EVENTSTORE_URL: ['esdb:', 'esdb+discover:', 'kurrentdb:', 'kurrentdb+discover:', 'postgres:', 'postgresql:'],
  MONGODB_URL: ['mongodb:', 'mongodb+srv:'],
  MINIO_URL: ['http:', 'https:'],
  SMTP_URL: ['smtp:', 'smtps:'],
};

const MAIL_ADDRESS = /^[^\s@<>"]+@[^\s@<>"]+\.[^\s@<>"]+$/;

/** `address` or `Display Name <address>` (quotes around the name optional). */
function parseMailFrom(value: string): { name?: string; address: string } | null {
  const named = /^\s*"?([^"<>]*?)"?\s*<([^<>]+)>\s*$/.exec(value);
  const address = (named ? named[2] : value).trim();
  if (!MAIL_ADDRESS.test(address)) return null;
  const name = named?.[1].trim();
  return name ? { name, address } : { address };
}

export function readConfig(env: Env = process.env): BurrowConfig {
  const problems: string[] = [];
  const get = (name: string) => {
    const v = env[name]?.trim();
    return v === '' ? undefined : v;
  };
  const url = (name: string) => {
    const v = get(name);
    if (v === undefined) return undefined;
    try {
      const u = new URL(v);
      if (!URL_SCHEMES[name].includes(u.protocol)) {
        problems.push(`${name} must use one of ${URL_SCHEMES[name].join(' ')} (got "${u.protocol}")`);
      }
    } catch {
      problems.push(`${name} is not a valid URL: "${v}"`);
    }
    return v;
  };
  const int = (name: string, fallback: number, min: number, max: number) => {
    const v = get(name);
    if (v === undefined) return fallback;
    if (!/^\d+$/.test(v) || Number(v) < min || Number(v) > max) {
      problems.push(`${name} must be an integer from ${min} to ${max} (got "${v}")`);
      return fallback;
    }
    return Number(v);
  };

  const powerOfTwo = (name: string, fallback: number, min: number, max: number) => {
    const v = int(name, fallback, min, max);
    if ((v & (v - 1)) !== 0) {
      problems.push(`${name} must be a power of two (got "${get(name)}")`);
      return fallback;
    }
    return v;
  };

  const bool = (name: string, fallback: boolean) => {
    const v = get(name)?.toLowerCase();
    if (v === undefined) return fallback;
    if (['true', '1', 'yes', 'on'].includes(v)) return true;
    if (['false', '0', 'no', 'off'].includes(v)) return false;
    problems.push(`${name} must be true or false (got "${get(name)}")`);
    return fallback;
  };

  const partnerUsername = get('BURROW_PARTNER_USERNAME');
  const partnerPassword = get('BURROW_PARTNER_PASSWORD');
  if ((partnerUsername === undefined) !== (partnerPassword === undefined)) {
    problems.push('BURROW_PARTNER_USERNAME and BURROW_PARTNER_PASSWORD must be set together');
  }
  if (partnerPassword !== undefined && partnerPassword.length < 8) {
    problems.push('BURROW_PARTNER_PASSWORD must be at least 8 characters');
  }
  const secret = get('BURROW_SECRET');
  // several keys, comma-separated and newest first, let signing keys rotate (the first signs, all verify)
  if (secret !== undefined && secret.split(',').some((key) => key.trim().length < 32))
    problems.push('BURROW_SECRET: each key (comma-separated, newest first) must be at least 32 characters');
  const logLevel = get('LOG_LEVEL') ?? 'info';
  if (!['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'].includes(logLevel)) {
    problems.push(`LOG_LEVEL must be one of fatal error warn info debug trace silent (got "${logLevel}")`);
  }

  // the driver itself is chosen where SQLite is first opened (libs/sqlite); a value it refuses is said here, with the rest
  try {
    chooseSqliteDriver(process.versions.node, get('BURROW_SQLITE_DRIVER'));
  } catch (error) {
    problems.push((error as Error).message);
  }

  const sqliteSynchronous = (get('BURROW_SQLITE_SYNCHRONOUS') ?? 'full').toLowerCase();
  if (sqliteSynchronous !== 'full' && sqliteSynchronous !== 'normal') {
    problems.push(`BURROW_SQLITE_SYNCHRONOUS must be full or normal (got "${get('BURROW_SQLITE_SYNCHRONOUS')}")`);
  }

  const onMismatch = (get('BURROW_READ_MODELS_ON_STORE_MISMATCH') ?? 'rebuild').toLowerCase();
  if (onMismatch !== 'rebuild' && onMismatch !== 'refuse') {
    problems.push(
      `BURROW_READ_MODELS_ON_STORE_MISMATCH must be rebuild or refuse (got "${get('BURROW_READ_MODELS_ON_STORE_MISMATCH')}")`,
    );
  }

  const readModels = get('BURROW_READ_MODELS')?.toLowerCase();
  if (readModels !== undefined && readModels !== 'sqlite' && readModels !== 'memory') {
    problems.push(`BURROW_READ_MODELS must be sqlite or memory (got "${get('BURROW_READ_MODELS')}")`);
  }

  // OpenTelemetry's own variables (libs/tracing reads them when tracing starts): a typo is said here, with the rest
  problems.push(...tracingProblems(env));

  const publicUrl = url('BURROW_PUBLIC_URL');
  const smtpFrom = get('SMTP_FROM');
  let mailFrom = smtpFrom === undefined ? null : parseMailFrom(smtpFrom);
  if (smtpFrom !== undefined && !mailFrom)
    problems.push(`SMTP_FROM must be an email address or "Name <address>" (got "${smtpFrom}")`);
  if (!mailFrom) {
    let host = 'localhost';
    try {
      if (publicUrl) host = new URL(publicUrl).hostname;
    } catch {
      // reported above
    }
    mailFrom = { name: 'Burrow', address: `noreply@${host}` };
  }

  const tlsCert = get('BURROW_TLS_CERT');
  const tlsKey = get('BURROW_TLS_KEY');
  let tls: BurrowConfig['tls'];
  if ((tlsCert === undefined) !== (tlsKey === undefined))
    problems.push(
      'BURROW_TLS_CERT and BURROW_TLS_KEY must be set together (PEM files: the certificate chain and its private key)',
    );
  else if (tlsCert !== undefined && tlsKey !== undefined) {
    for (const [name, file] of [
      ['BURROW_TLS_CERT', tlsCert],
      ['BURROW_TLS_KEY', tlsKey],
    ]) {
      try {
        accessSync(file, constants.R_OK);
      } catch {
        problems.push(`${name}: cannot read "${file}"`);
      }
    }
    tls = { cert: resolve(tlsCert), key: resolve(tlsKey) };
  }
  const redirectPort = get('BURROW_HTTP_REDIRECT_PORT');
  const httpRedirectPort = redirectPort === undefined ? undefined : int('BURROW_HTTP_REDIRECT_PORT', 0, 0, 65535);
  if (redirectPort !== undefined && !tls)
    problems.push(
      'BURROW_HTTP_REDIRECT_PORT needs BURROW_TLS_CERT and BURROW_TLS_KEY (it redirects to the HTTPS port)',
    );

  const minioUrl = url('MINIO_URL');
  let minio: BurrowConfig['minio'];
  if (minioUrl) {
    const accessKey = get('MINIO_ACCESS_KEY');
    const secretKey = get('MINIO_SECRET_KEY');
    if (!accessKey) problems.push('MINIO_ACCESS_KEY is required when MINIO_URL is set');
    if (!secretKey) problems.push('MINIO_SECRET_KEY is required when MINIO_URL is set');
    minio = {
      url: minioUrl,
      accessKey: accessKey ?? '',
      secretKey: secretKey ?? '',
      bucket: get('MINIO_BUCKET') ?? 'burrow',
    };
  }

  const config: BurrowConfig = {
    port: int('PORT', 8080, 0, 65535),
    dataDir: resolve(get('BURROW_DATA_DIR') ?? './data'),
    partnerUsername,
    partnerPassword,
    secret,
    publicUrl,
    natsUrl: url('NATS_URL'),
    eventstoreUrl: url('EVENTSTORE_URL'),
    mongodbUrl: url('MONGODB_URL'),
    minio,
    logLevel,
    rpcTimeoutMs: int('BURROW_RPC_TIMEOUT_MS', 5000, 50, 120_000),
    plansFile: get('BURROW_PLANS_FILE'),
    trustProxy: get('BURROW_TRUST_PROXY'),
    recoveryGraceSeconds: int('BURROW_RECOVERY_GRACE_SECONDS', 60, 0, 86_400),
    recoveryIntervalMs: int('BURROW_RECOVERY_INTERVAL_MS', 30_000, 100, 3_600_000),
    purgeIntervalMs: int('BURROW_PURGE_INTERVAL_MS', 3_600_000, 1000, 604_800_000),
    previewConcurrency: int('BURROW_PREVIEW_CONCURRENCY', 2, 0, 64),
    blobReapIntervalMs: int('BURROW_BLOB_REAP_INTERVAL_MS', 21_600_000, 1000, 604_800_000),
    blobReapGraceSeconds: int('BURROW_BLOB_REAP_GRACE_SECONDS', 86_400, 60, 31_536_000),
    blobScrubIntervalMs: int('BURROW_BLOB_SCRUB_INTERVAL_MS', 0, 0, 31_536_000_000),
    blobScrubMbPerSecond: int('BURROW_BLOB_SCRUB_MB_PER_SECOND', 20, 0, 100_000),
    shareAccessFlushMs: int('BURROW_SHARE_ACCESS_FLUSH_MS', 60_000, 10, 3_600_000),
    davProperties: {
      maxBytesPerUser: int(
        'BURROW_DAV_PROPERTIES_MAX_BYTES_PER_USER',
        DEAD_PROPERTIES_PER_USER_MAX_BYTES,
        DEAD_PROPERTIES_MAX_BYTES,
        1 << 30,
      ),
      maxWriteBytesPerDay: int(
        'BURROW_DAV_PROPERTY_WRITES_MAX_BYTES_PER_DAY',
        DEAD_PROPERTY_WRITES_PER_DAY_MAX_BYTES,
        DEAD_PROPERTIES_MAX_BYTES,
        1 << 30,
      ),
    },
    blobReverifyAfterMs: int('BURROW_BLOB_REVERIFY_AFTER_MS', 3_600_000, 0, 31_536_000_000),
    fastRoutes: bool('BURROW_FAST_ROUTES', true),
    replicaReportMs: int('BURROW_REPLICA_REPORT_MS', 2000, 100, 60_000),
    sessionMemoMs: int('BURROW_SESSION_MEMO_MS', SESSION_MEMO_TTL_MS, 0, SESSION_MEMO_TTL_MS),
    opsPort: get('BURROW_OPS_PORT') === undefined ? undefined : int('BURROW_OPS_PORT', 0, 0, 65535),
    partnerPasswordFile: resolve(
      get('BURROW_PARTNER_PASSWORD_FILE') ??
        join(resolve(get('BURROW_DATA_DIR') ?? './data'), 'first-partner-password'),
    ),
    faultKillAt: get('BURROW_FAULT_KILL_AT'),
    listingPageSize: int('BURROW_LISTING_PAGE_SIZE', 1000, 10, 5000),
    passwordScryptN: powerOfTwo('BURROW_PASSWORD_SCRYPT_N', 16384, 1024, 65536),
    aggregateCacheStreams: int('BURROW_AGGREGATE_CACHE_STREAMS', DEFAULT_AGGREGATE_CACHE_STREAMS, 0, 10_000_000),
    sqliteSynchronous: sqliteSynchronous === 'normal' ? 'normal' : 'full',
    readModels: readModels === 'memory' || readModels === 'sqlite' ? readModels : get('NATS_URL') ? 'memory' : 'sqlite',
    readModelsOnStoreMismatch: onMismatch === 'refuse' ? 'refuse' : 'rebuild',
    smtpUrl: url('SMTP_URL'),
    mailFrom,
    setPasswordLinkTtlSeconds: int('BURROW_SET_PASSWORD_LINK_TTL_SECONDS', 259_200, 300, 2_592_000),
    activationMail: {
      perUser: int('BURROW_ACTIVATION_MAIL_PER_USER', 5, 1, 1_000_000),
      perPartner: int('BURROW_ACTIVATION_MAIL_PER_PARTNER', 500, 1, 10_000_000),
      windowSeconds: int('BURROW_ACTIVATION_MAIL_WINDOW_SECONDS', 3600, 1, 2_592_000),
    },
    mailOutboxMaxAgeDays: int('BURROW_MAIL_OUTBOX_MAX_AGE_DAYS', 30, 0, 36_500),
    idleTimeoutSeconds: int('BURROW_IDLE_TIMEOUT_SECONDS', 180, 1, 86_400),
    connectionLimits: {
      perAddress: int('BURROW_MAX_CONNECTIONS_PER_ADDRESS', 256, 0, 1_000_000),
      unfinishedHeadersPerAddress: int('BURROW_MAX_UNFINISHED_HEADERS_PER_ADDRESS', 64, 0, 1_000_000),
      headersTimeoutSeconds: int('BURROW_HEADERS_TIMEOUT_SECONDS', 20, 1, 600),
    },
    minFreeDiskMb:
      get('BURROW_MIN_FREE_DISK_MB') === undefined ? undefined : int('BURROW_MIN_FREE_DISK_MB', 0, 0, 1_048_576),
    webhooks: {
      allowHttp: bool('BURROW_WEBHOOK_ALLOW_HTTP', false),
      allowPrivateAddresses: bool('BURROW_WEBHOOK_ALLOW_PRIVATE_ADDRESSES', false),
      retryBaseMs: int('BURROW_WEBHOOK_RETRY_BASE_MS', 30_000, 10, 3_600_000),
      retryWindowSeconds: int('BURROW_WEBHOOK_RETRY_WINDOW_SECONDS', 259_200, 86_400, 2_592_000),
      disableAfterSeconds: int('BURROW_WEBHOOK_DISABLE_AFTER_SECONDS', 259_200, 86_400, 2_592_000),
      timeoutMs: int('BURROW_WEBHOOK_TIMEOUT_MS', 10_000, 100, 60_000),
      concurrency: int('BURROW_WEBHOOK_CONCURRENCY', 64, 1, 1024),
      concurrencyPerPartner: int('BURROW_WEBHOOK_CONCURRENCY_PER_PARTNER', 8, 1, 1024),
      concurrencyPerEndpoint: int('BURROW_WEBHOOK_CONCURRENCY_PER_ENDPOINT', 4, 1, 1024),
    },
    tls,
    httpRedirectPort,
    sse: {
      heartbeatMs: int('BURROW_SSE_HEARTBEAT_MS', 15_000, 100, 300_000),
      maxSeconds: int('BURROW_SSE_MAX_SECONDS', 3600, 1, 86_400),
    },
  };
  if (problems.length) throw new ConfigError(problems);
  return config;
}
