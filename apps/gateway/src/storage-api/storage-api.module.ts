/**
 * Interface B, the storage interface (`/storage/`): a user's devices, folders, files and versions,
 * and writing into them (device registration, uploads, deletes). Browsing, downloads, zips,
 * login and links arrive with the storage interface issue.
 */
import { Module } from '@nestjs/common';
import { StorageUserGuard } from '../http/storage-user.guard.js';
import { StorageWriteController } from './storage-write.controller.js';

export const STORAGE_API_CONTROLLERS = [StorageWriteController];

@Module({ controllers: STORAGE_API_CONTROLLERS, providers: [StorageUserGuard] })
export class StorageApiModule {}
