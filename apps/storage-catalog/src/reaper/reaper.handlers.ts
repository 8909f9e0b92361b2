/**
 * The operator's way to run the blob reaper now (`storage-catalog.blobs.reap`, optionally with
 * `grace_seconds`): the reply is the run's report, sent once the run is over. A run walks the
 * whole blob store: call it with a generous timeout.
 */
import { badRequest, type BlobReapReport, type ReapBlobsRequest, Subjects } from '@burrow/contracts';
import { Controller, Inject } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { BlobReaper } from './blob-reaper.js';

export const BLOB_REAPER = Symbol('BLOB_REAPER');

@Controller()
export class ReaperHandlers {
  constructor(@Inject(BLOB_REAPER) private readonly reaper: BlobReaper) {}

  @MessagePattern(Subjects.storage.reapBlobs)
  async run(@Payload() req: ReapBlobsRequest = {}): Promise<BlobReapReport> {
    const grace = req?.grace_seconds;
    if (grace !== undefined && !(Number.isSafeInteger(grace) && grace >= 0))
      throw badRequest('grace_seconds must be a whole number of seconds, 0 or more', ['grace_seconds']);
    return this.reaper.run(grace);
  }
}
