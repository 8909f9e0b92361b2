/**
 * Interface B, the storage interface (`/storage/`): logging in and out, a user's devices, folders,
 * files and versions, downloads, zips and links, and writing into them (device registration,
 * uploads, deletes). Specific routes come first: the catch-all path routes of the read and write
 * controllers would otherwise take `.../login`.
 */
import { Module } from '@nestjs/common';
import { StorageUserGuard } from '../http/storage-user.guard.js';
import { StorageReadController } from './storage-read.controller.js';
import { StorageSessionController } from './storage-session.controller.js';
import { StorageWriteController } from './storage-write.controller.js';

export const STORAGE_API_CONTROLLERS = [StorageSessionController, StorageReadController, StorageWriteController];

@Module({ controllers: STORAGE_API_CONTROLLERS, providers: [StorageUserGuard] })
export class StorageApiModule {}
