/**
 * Interface B, the storage interface (`/storage/`): a user's devices, folders, files and versions,
 * writing into them (device registration, uploads, deletes), and the user's share rooms. Browsing,
 * downloads, zips, login and links arrive with the storage interface issue.
 */
import { Module } from '@nestjs/common';
import { StorageUserGuard } from '../http/storage-user.guard.js';
import { ShareRoomsController } from './share-rooms.controller.js';
import { StorageWriteController } from './storage-write.controller.js';

/** Share rooms first: `/storage/<b32>/shares` must win over the catch-all `/storage/*path` routes. */
export const STORAGE_API_CONTROLLERS = [ShareRoomsController, StorageWriteController];

@Module({ controllers: STORAGE_API_CONTROLLERS, providers: [StorageUserGuard] })
export class StorageApiModule {}
