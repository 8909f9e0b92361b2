/**
 * Interface B, the storage interface (`/storage/`): logging in and out, a user's devices, folders,
 * files and versions, downloads, zips and links, writing into them (device registration, uploads,
 * deletes), and the user's share rooms. Specific routes come first: the catch-all path routes of
 * the read and write controllers would otherwise take `.../login` and `.../shares`.
 */
import { Module } from '@nestjs/common';
import { StorageUserGuard } from '../storage-access/storage-user.guard.js';
import { ShareRoomsController } from './share-rooms.controller.js';
import { StorageReadController } from './storage-read.controller.js';
import { StorageSessionController } from './storage-session.controller.js';
import { StorageWriteController } from './storage-write.controller.js';

export const STORAGE_API_CONTROLLERS = [
  StorageSessionController,
  ShareRoomsController,
  StorageReadController,
  StorageWriteController,
];

@Module({ controllers: STORAGE_API_CONTROLLERS, providers: [StorageUserGuard] })
export class StorageApiModule {}
