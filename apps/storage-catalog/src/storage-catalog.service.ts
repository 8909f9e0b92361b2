/**
 * Composition of the storage-catalog service: it owns devices, files, versions and share rooms.
 * Adapters come from the infrastructure; projections feed its read models; handlers answer on the
 * bus. Used by this app's own process entry (`main.ts`) and by the standalone process.
 */
import { ProjectionRunner } from '@burrow/eventsourcing';
import { type Infrastructure, startService, systemClock } from '@burrow/runtime';
import { RpcClient } from '@burrow/transport';
import { type INestMicroservice, Module } from '@nestjs/common';
import { STORAGE_CONTEXT, type StorageContext } from './shared/context.js';
import { HealthHandlers } from './shared/health.handlers.js';
import { shareRoomsProjection } from './shares/share-rooms.projection.js';
import { SharesHandlers } from './shares/shares.handlers.js';
import { storageUsersProjection } from './users/users.projection.js';

@Module({})
class StorageCatalogModule {}

export async function startStorageCatalog(infra: Infrastructure): Promise<{ app: INestMicroservice; close(): Promise<void> }> {
  const log = infra.logger('storage-catalog');
  const store = await infra.eventStore();
  const docs = await infra.documents('storage-catalog');
  const runner = new ProjectionRunner(store, docs, [storageUsersProjection(docs), shareRoomsProjection(docs)], {
    log: (level, msg, extra) => log[level](extra ?? {}, msg),
  });
  await runner.start();
  const client = infra.client('storage-catalog');
  await client.connect();
  const rpc = new RpcClient(client, infra.config.rpcTimeoutMs);
  const ctx: StorageContext = { store, docs, runner, rpc, clock: systemClock, log };
  const app = await startService(
    'storage-catalog',
    { module: StorageCatalogModule, controllers: [HealthHandlers, SharesHandlers], providers: [{ provide: STORAGE_CONTEXT, useValue: ctx }] },
    infra,
  );
  return {
    app,
    close: async () => {
      await app.close();
      await runner.stop();
      await rpc.close();
    },
  };
}
