/**
 * Interface B, the storage interface (`/storage/`): a user's devices, folders, files, versions,
 * previews, downloads and zips, login and links. Its controllers arrive with the storage issue;
 * the module is wired now so the gateway's shape does not change when they do.
 */
import { Module } from '@nestjs/common';

export const STORAGE_API_CONTROLLERS = [];

@Module({ controllers: STORAGE_API_CONTROLLERS })
export class StorageApiModule {}
