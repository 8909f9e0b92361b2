/**
 * Composition of the storage-catalog service. It owns devices, files, versions and share rooms;
 * today it serves share enable/disable for the partner interface, the rest arrives with the
 * storage interface.
 */
import { type Infrastructure, startService } from '@burrow/runtime';
import { type INestMicroservice, Module } from '@nestjs/common';
import { SharesHandlers } from './shares/shares.handlers.js';
import { STORAGE_CONTEXT } from './shared/context.js';

@Module({})
class StorageCatalogModule {}

export async function startStorageCatalog(infra: Infrastructure): Promise<{ app: INestMicroservice; close(): Promise<void> }> {
  const store = await infra.eventStore();
  const app = await startService(
    'storage-catalog',
    { module: StorageCatalogModule, controllers: [SharesHandlers], providers: [{ provide: STORAGE_CONTEXT, useValue: { store } }] },
    infra,
  );
  return { app, close: () => app.close() };
}
