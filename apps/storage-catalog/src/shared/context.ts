/**
 * What every storage-catalog handler needs: the event store, this service's read models, the
 * projection runner (read-your-writes), the log of multi-step writes, the blob store, a bus client
 * for the calls it makes to other services, a clock, a logger, and where committed blobs go for
 * their previews. Built once in the composition root (storage-catalog.service.ts).
 */
import type { BlobStore } from '@burrow/blobs';
import type { DocumentStore } from '@burrow/documents';
import type { EventStore } from '@burrow/event-store';
import type { ProcessLog, ProjectionRunner } from '@burrow/eventsourcing';
import type { Clock, Logger } from '@burrow/runtime';
import type { RpcClient } from '@burrow/transport';

/** What a user's WebDAV dead properties may hold and write a day (files/dead-property-usage.ts checks them). */
export interface DeadPropertyLimits {
  maxBytesPerUser: number;
  maxWriteBytesPerDay: number;
}

export interface StorageContext {
  store: EventStore;
  docs: DocumentStore;
  runner: ProjectionRunner;
  processes: ProcessLog;
  blobs: BlobStore;
  rpc: RpcClient;
  clock: Clock;
  log: Logger;
  /**
   * told of every blob this replica commits (the previewer, which makes previews of images);
   * `head`: the blob's first bytes, when the committer has them (see `Previewer.committed`)
   */
  previews: { committed(blob: string, head?: Buffer): void };
  /** what one user's WebDAV dead properties may take (absent: the defaults) */
  deadProperties?: DeadPropertyLimits;
}

/** Where previews are not made (tests of other features). */
export const noPreviews: StorageContext['previews'] = { committed: () => undefined };

export const STORAGE_CONTEXT = Symbol('STORAGE_CONTEXT');
