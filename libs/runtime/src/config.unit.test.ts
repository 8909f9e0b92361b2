import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ConfigError, readConfig } from './config.js';
import { BETTER_SQLITE3_REFUSED_SINCE, NODE_SQLITE_SINCE, versionAtLeast } from '@burrow/sqlite';

describe('readConfig', () => {
  it('applies defaults when nothing is set', () => {
    const c = readConfig({});
    assert.equal(c.port, 8080);
    assert.match(c.dataDir, /\/data$/);
    assert.equal(c.natsUrl, undefined);
    assert.equal(c.rpcTimeoutMs, 5000);
    assert.equal(c.sqliteSynchronous, 'full');
  });

  it('reads every documented variable', () => {
    const c = readConfig({
      PORT: '9000',
      BURROW_DATA_DIR: '/tmp/x',
      BURROW_PARTNER_USERNAME: 'p',
      BURROW_PARTNER_PASSWORD: 'longenough',
      BURROW_SECRET: 'x'.repeat(40),
      BURROW_PUBLIC_URL: 'https://b.example',
      NATS_URL: 'nats://h:4222',
      EVENTSTORE_URL: 'esdb://h:2113?tls=false',
      MONGODB_URL: 'mongodb://h:27017',
      MINIO_URL: 'http://h:9000',
      MINIO_ACCESS_KEY: 'a',
      MINIO_SECRET_KEY: 'b',
      MINIO_BUCKET: 'bk',
    });
    assert.equal(c.port, 9000);
    assert.equal(c.dataDir, '/tmp/x');
    assert.equal(c.natsUrl, 'nats://h:4222');
    assert.deepEqual(c.minio, { url: 'http://h:9000', accessKey: 'a', secretKey: 'b', bucket: 'bk' });
  });

  it('names every malformed variable in one error', () => {
    assert.throws(
      () =>
        readConfig({
          PORT: 'eighty',
          NATS_URL: 'http://wrong-scheme',
          MONGODB_URL: 'not a url',
          MINIO_URL: 'http://m:9000',
          BURROW_SECRET: 'short',
        }),
      (error: unknown) => {
        assert.ok(error instanceof ConfigError);
        const text = error.problems.join('\n');
        for (const name of ['PORT', 'NATS_URL', 'MONGODB_URL', 'MINIO_ACCESS_KEY', 'MINIO_SECRET_KEY', 'BURROW_SECRET'])
          assert.match(text, new RegExp(name));
        return true;
      },
    );
  });

  it('EVENTSTORE_URL: KurrentDB (esdb, kurrentdb) or PostgreSQL (postgres, postgresql) URLs, nothing else', () => {
    for (const url of [
      'esdb://h:2113?tls=false',
      'kurrentdb://h:2113?tls=false',
      'kurrentdb+discover://h:2113',
      'postgres://burrow@db/events',
      'postgresql://burrow:pw@db:5432/events?sslmode=require',
    ]) {
      assert.equal(readConfig({ EVENTSTORE_URL: url }).eventstoreUrl, url);
    }
    assert.throws(
      () => readConfig({ EVENTSTORE_URL: 'mysql://db/events' }),
      /EVENTSTORE_URL must use one of .*postgres:/,
    );
  });

  it('BURROW_READ_MODELS: SQLite files by default in one process, memory by default with NATS_URL, either when named', () => {
    assert.equal(readConfig({}).readModels, 'sqlite');
    assert.equal(readConfig({ NATS_URL: 'nats://127.0.0.1:4222' }).readModels, 'memory');
    assert.equal(readConfig({ BURROW_READ_MODELS: 'Memory' }).readModels, 'memory');
    assert.equal(readConfig({ BURROW_READ_MODELS: 'sqlite', NATS_URL: 'nats://127.0.0.1:4222' }).readModels, 'sqlite');
    assert.throws(
      () => readConfig({ BURROW_READ_MODELS: 'mongo' }),
      /BURROW_READ_MODELS must be sqlite or memory \(got "mongo"\)/,
    );
  });

  it('BURROW_SQLITE_SYNCHRONOUS relaxes durability to normal, and nothing else', () => {
    assert.equal(readConfig({ BURROW_SQLITE_SYNCHRONOUS: 'normal' }).sqliteSynchronous, 'normal');
    assert.equal(readConfig({ BURROW_SQLITE_SYNCHRONOUS: 'FULL' }).sqliteSynchronous, 'full');
    assert.throws(
      () => readConfig({ BURROW_SQLITE_SYNCHRONOUS: 'off' }),
      /BURROW_SQLITE_SYNCHRONOUS must be full or normal/,
    );
  });

  it('BURROW_LISTING_PAGE_SIZE: 1000 entries by default, from 10 to 5000', () => {
    assert.equal(readConfig({}).listingPageSize, 1000);
    assert.equal(readConfig({ BURROW_LISTING_PAGE_SIZE: '100' }).listingPageSize, 100);
    assert.throws(
      () => readConfig({ BURROW_LISTING_PAGE_SIZE: '9' }),
      /BURROW_LISTING_PAGE_SIZE must be an integer from 10 to 5000/,
    );
  });

  it('BURROW_PASSWORD_SCRYPT_N: 16384 by default, a power of two from 1024 to 65536', () => {
    assert.equal(readConfig({}).passwordScryptN, 16384);
    assert.equal(readConfig({ BURROW_PASSWORD_SCRYPT_N: '65536' }).passwordScryptN, 65536);
    assert.throws(
      () => readConfig({ BURROW_PASSWORD_SCRYPT_N: '3000' }),
      /BURROW_PASSWORD_SCRYPT_N must be a power of two/,
    );
    assert.throws(
      () => readConfig({ BURROW_PASSWORD_SCRYPT_N: '512' }),
      /BURROW_PASSWORD_SCRYPT_N must be an integer from 1024 to 65536/,
    );
  });

  it('BURROW_SQLITE_DRIVER: node or better-sqlite3, refused where that driver cannot run (said at start, with the other problems)', () => {
    assert.throws(
      () => readConfig({ BURROW_SQLITE_DRIVER: 'sqlite3' }),
      /BURROW_SQLITE_DRIVER must be node or better-sqlite3 \(got "sqlite3"\)/,
    );
    readConfig({ BURROW_SQLITE_DRIVER: '' });
    if (versionAtLeast(process.versions.node, NODE_SQLITE_SINCE)) readConfig({ BURROW_SQLITE_DRIVER: 'node' });
    else assert.throws(() => readConfig({ BURROW_SQLITE_DRIVER: 'node' }), /node:sqlite needs Node 22\.16\.0 or later/);
    if (versionAtLeast(process.versions.node, BETTER_SQLITE3_REFUSED_SINCE))
      assert.throws(() => readConfig({ BURROW_SQLITE_DRIVER: 'better-sqlite3' }), /is refused on Node/);
    else readConfig({ BURROW_SQLITE_DRIVER: 'better-sqlite3' });
  });

  it('BURROW_PURGE_INTERVAL_MS: an hour by default, from 1 s to 7 days', () => {
    assert.equal(readConfig({}).purgeIntervalMs, 3_600_000);
    assert.equal(readConfig({ BURROW_PURGE_INTERVAL_MS: '60000' }).purgeIntervalMs, 60_000);
    assert.throws(
      () => readConfig({ BURROW_PURGE_INTERVAL_MS: '0' }),
      /BURROW_PURGE_INTERVAL_MS must be an integer from 1000 to 604800000/,
    );
  });

  it('previews and the blob reaper: 2 images at once (0 turns previews off), a run every 6 hours, a day of grace (at least a minute)', () => {
    const defaults = readConfig({});
    assert.deepEqual(
      [defaults.previewConcurrency, defaults.blobReapIntervalMs, defaults.blobReapGraceSeconds],
      [2, 21_600_000, 86_400],
    );
    assert.equal(readConfig({ BURROW_PREVIEW_CONCURRENCY: '0' }).previewConcurrency, 0);
    assert.throws(
      () => readConfig({ BURROW_BLOB_REAP_GRACE_SECONDS: '10' }),
      /BURROW_BLOB_REAP_GRACE_SECONDS must be an integer from 60/,
    );
  });

  it('BURROW_IDLE_TIMEOUT_SECONDS: connections idle for 3 minutes are cut by default, from 1 s to a day', () => {
    assert.equal(readConfig({}).idleTimeoutSeconds, 180);
    assert.equal(readConfig({ BURROW_IDLE_TIMEOUT_SECONDS: '2' }).idleTimeoutSeconds, 2);
    for (const bad of ['0', '86401', '2.5', 'soon']) {
      assert.throws(
        () => readConfig({ BURROW_IDLE_TIMEOUT_SECONDS: bad }),
        /BURROW_IDLE_TIMEOUT_SECONDS must be an integer from 1 to 86400/,
      );
    }
  });

  it('connection limits per client address: 256 connections, 64 with unfinished headers, 20 s for headers unless told (0: no limit)', () => {
    assert.deepEqual(readConfig({}).connectionLimits, {
      perAddress: 256,
      unfinishedHeadersPerAddress: 64,
      headersTimeoutSeconds: 20,
    });
    const told = readConfig({
      BURROW_MAX_CONNECTIONS_PER_ADDRESS: '0',
      BURROW_MAX_UNFINISHED_HEADERS_PER_ADDRESS: '8',
      BURROW_HEADERS_TIMEOUT_SECONDS: '5',
    });
    assert.deepEqual(told.connectionLimits, {
      perAddress: 0,
      unfinishedHeadersPerAddress: 8,
      headersTimeoutSeconds: 5,
    });
    assert.throws(
      () => readConfig({ BURROW_MAX_CONNECTIONS_PER_ADDRESS: '-1' }),
      /BURROW_MAX_CONNECTIONS_PER_ADDRESS must be an integer from 0 to 1000000/,
    );
    assert.throws(
      () => readConfig({ BURROW_MAX_UNFINISHED_HEADERS_PER_ADDRESS: 'many' }),
      /BURROW_MAX_UNFINISHED_HEADERS_PER_ADDRESS must be an integer/,
    );
    assert.throws(
      () => readConfig({ BURROW_HEADERS_TIMEOUT_SECONDS: '0' }),
      /BURROW_HEADERS_TIMEOUT_SECONDS must be an integer from 1 to 600/,
    );
  });

  it('the blob scrub: off unless BURROW_BLOB_SCRUB_INTERVAL_MS is set, then at most 20 MB/s unless told', () => {
    const defaults = readConfig({});
    assert.deepEqual([defaults.blobScrubIntervalMs, defaults.blobScrubMbPerSecond], [0, 20]);
    const set = readConfig({ BURROW_BLOB_SCRUB_INTERVAL_MS: '604800000', BURROW_BLOB_SCRUB_MB_PER_SECOND: '0' });
    assert.deepEqual([set.blobScrubIntervalMs, set.blobScrubMbPerSecond], [604_800_000, 0]);
    assert.throws(
      () => readConfig({ BURROW_BLOB_SCRUB_MB_PER_SECOND: '-1' }),
      /BURROW_BLOB_SCRUB_MB_PER_SECOND must be an integer/,
    );
  });

  it('downloads: a blob that read back right is hashed again after an hour unless told (0: every time)', () => {
    assert.equal(readConfig({}).blobReverifyAfterMs, 3_600_000);
    assert.equal(readConfig({ BURROW_BLOB_REVERIFY_AFTER_MS: '0' }).blobReverifyAfterMs, 0);
    assert.throws(
      () => readConfig({ BURROW_BLOB_REVERIFY_AFTER_MS: 'never' }),
      /BURROW_BLOB_REVERIFY_AFTER_MS must be an integer/,
    );
    assert.equal(readConfig({}).fastRoutes, true);
    assert.equal(readConfig({ BURROW_FAST_ROUTES: 'off' }).fastRoutes, false);
  });

  it('requires partner username and password together', () => {
    assert.throws(
      () => readConfig({ BURROW_PARTNER_USERNAME: 'p' }),
      /BURROW_PARTNER_USERNAME and BURROW_PARTNER_PASSWORD/,
    );
  });

  it('mail: SMTP_URL (smtp/smtps), SMTP_FROM as an address or "Name <address>", the link lifetime', () => {
    const d = readConfig({});
    assert.equal(d.smtpUrl, undefined, 'no SMTP_URL: mail is written to files');
    assert.deepEqual(d.mailFrom, { name: 'Burrow', address: 'noreply@localhost' });
    assert.deepEqual(readConfig({ BURROW_PUBLIC_URL: 'https://backup.example.com/' }).mailFrom, {
      name: 'Burrow',
      address: 'noreply@backup.example.com',
    });
    assert.equal(d.setPasswordLinkTtlSeconds, 259_200);
    const c = readConfig({
      SMTP_URL: 'smtps://u:p@mail.example:465',
      SMTP_FROM: '"Acme Backup" <backup@acme.example>',
      BURROW_SET_PASSWORD_LINK_TTL_SECONDS: '3600',
    });
    assert.equal(c.smtpUrl, 'smtps://u:p@mail.example:465');
    assert.deepEqual(c.mailFrom, { name: 'Acme Backup', address: 'backup@acme.example' });
    assert.equal(c.setPasswordLinkTtlSeconds, 3600);
    assert.deepEqual(readConfig({ SMTP_FROM: 'backup@acme.example' }).mailFrom, { address: 'backup@acme.example' });
    assert.throws(
      () =>
        readConfig({
          SMTP_URL: 'http://mail.example',
          SMTP_FROM: 'not an address',
          BURROW_SET_PASSWORD_LINK_TTL_SECONDS: '10',
        }),
      (error: unknown) => {
        assert.ok(error instanceof ConfigError);
        const text = error.problems.join('\n');
        for (const name of ['SMTP_URL', 'SMTP_FROM', 'BURROW_SET_PASSWORD_LINK_TTL_SECONDS'])
          assert.match(text, new RegExp(name));
        return true;
      },
    );
  });
});
