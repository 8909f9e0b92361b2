/**
 * Boots Burrow in standalone mode for an end-to-end test: a fresh data directory, a random port,
 * known partner credentials, silent logs.
 */
import type { EventStore } from '@burrow/event-store';
import { readConfig } from '@burrow/runtime';
import { startSystem } from '@burrow/standalone';
import { RpcClient } from '@burrow/transport';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openEventStoreOf } from './event-store.js';

export interface TestTarget {
  mode: string;
  /** the production servers it runs on besides NATS (MinIO, FerretDB); none: embedded stores */
  servers?: string[];
  /** base URL of a gateway */
  url: string;
  /** every gateway (several in multi-process mode) */
  urls: string[];
  partner: { username: string; password: string };
  dataDir: string;
  /** what the target's processes get beside the run's environment for its production servers (its own MinIO bucket, database names); empty on embedded stores */
  serverEnv?: Record<string, string>;
  /** a bus client for operator actions (creating partners and plans, as the admin CLI does) */
  operator: RpcClient;
  /** a connection of the test's own to the target's event store (close it after) */
  openEventStore(): Promise<EventStore>;
  close(): Promise<void>;
}

/** folder listings page at this (BURROW_LISTING_PAGE_SIZE), so a test reaches a second page with a few hundred files */
export const LISTING_PAGE_SIZE_FOR_TESTS = '100';

export const TEST_PARTNER = { username: 'partner', password: 'partner-password-1' };

export function testEnv(dataDir: string, extra: Record<string, string> = {}): Record<string, string> {
  return {
    BURROW_DATA_DIR: dataDir,
    PORT: '0',
    BURROW_PARTNER_USERNAME: TEST_PARTNER.username,
    BURROW_PARTNER_PASSWORD: TEST_PARTNER.password,
    BURROW_SECRET: 'test-secret-0123456789abcdef0123456789abcdef',
    LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent',
    // the suites hash thousands of passwords: scrypt at its lowest cost (same code path)
    BURROW_PASSWORD_SCRYPT_N: '1024',
    // test files run side by side, several per core: a service may take longer than the
    // production default (5 s) to answer; a test of the timeout itself sets its own
    BURROW_RPC_TIMEOUT_MS: '15000',
    BURROW_LISTING_PAGE_SIZE: LISTING_PAGE_SIZE_FOR_TESTS,
    // share room visits are written every minute in production; a test waits for them, not a minute
    BURROW_SHARE_ACCESS_FLUSH_MS: '200',
    ...extra,
  };
}

export async function startStandalone(extraEnv: Record<string, string> = {}, dataDir?: string): Promise<TestTarget> {
  const dir = dataDir ?? (await mkdtemp(join(tmpdir(), 'burrow-e2e-')));
  const config = readConfig(testEnv(dir, extraEnv));
  const system = await startSystem(config);
  const operator = new RpcClient(system.infra.client('test-operator'));
  return {
    operator,
    mode: 'standalone',
    url: system.url,
    urls: [system.url],
    partner: TEST_PARTNER,
    dataDir: dir,
    openEventStore: () => openEventStoreOf(dir, config.eventstoreUrl),
    close: async () => {
      await system.close();
      if (!dataDir) await rm(dir, { recursive: true, force: true });
    },
  };
}
