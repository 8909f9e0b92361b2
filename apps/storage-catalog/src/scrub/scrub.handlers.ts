/**
 * The operator's scrub, a page per request (`storage-catalog.blobs.verify`): `admin verify-blobs`
 * walks the whole store with it, showing its progress. A page reads up to `max_bytes` (default
 * 256 MiB; a blob is always read whole): call it with a generous timeout.
 */
import { badRequest, Subjects, type VerifyBlobsPage, type VerifyBlobsRequest } from '@burrow/contracts';
import { isBlobKey } from '@burrow/blobs';
import { Controller, Inject } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { BlobScrubber } from './blob-scrub.js';

export const BLOB_SCRUBBER = Symbol('BLOB_SCRUBBER');

const positive = (n: unknown) => n === undefined || (typeof n === 'number' && Number.isSafeInteger(n) && n > 0);

@Controller()
export class ScrubHandlers {
  constructor(@Inject(BLOB_SCRUBBER) private readonly scrubber: BlobScrubber) {}

  @MessagePattern(Subjects.storage.verifyBlobs)
  async verify(@Payload() req: VerifyBlobsRequest = {}): Promise<VerifyBlobsPage> {
    if (req?.after !== undefined && !isBlobKey(req.after))
      throw badRequest('after must be a blob key (the next of the page before)', ['after']);
    if (!positive(req?.max_bytes)) throw badRequest('max_bytes must be a whole number above 0', ['max_bytes']);
    if (!positive(req?.max_blobs)) throw badRequest('max_blobs must be a whole number above 0', ['max_blobs']);
    return this.scrubber.verifyPage(req ?? {});
  }
}
