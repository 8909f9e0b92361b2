/**
 * WebDAV (`/dav/`): a user's devices, folders and files for rclone, restic (through rclone), macOS
 * Finder, the Windows mini-redirector, GNOME Files and scripts, on the same catalog and blob paths
 * as the storage interface. It imports only `http/` and libs. Its lock table is given by the
 * composition root (it needs the shared key-value store).
 */
import { type DynamicModule, type MiddlewareConsumer, Module, type NestModule, RequestMethod } from '@nestjs/common';
import { DAV_LOCKS, DavMiddleware } from './dav.middleware.js';
import { DAV_MOUNT } from './dav.routes.js';
import type { DavLocks } from './locks.js';

@Module({})
export class DavModule implements NestModule {
  static forRoot(locks: DavLocks): DynamicModule {
    return { module: DavModule, providers: [{ provide: DAV_LOCKS, useValue: locks }, DavMiddleware] };
  }

  configure(consumer: MiddlewareConsumer): void {
    consumer
      .apply(DavMiddleware)
      .forRoutes(
        { path: DAV_MOUNT, method: RequestMethod.ALL },
        { path: `${DAV_MOUNT}/*path`, method: RequestMethod.ALL },
      );
  }
}
