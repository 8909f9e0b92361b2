/**
 * `verify-blobs`: reads every blob and checks it against its hash, quarantines the corrupt ones
 * and lists them and the missing ones with the files and users they affect (verify/verify-blobs.ts;
 * docs/operations.md, "Verifying the blobs").
 */
import { type AdminCommand, FailedResult, UsageError, wholeNumber } from '../command-line.js';

export const verifyBlobsCommands: AdminCommand[] = [
  {
    name: 'verify-blobs',
    summary:
      'read every blob and check it against its hash; quarantine corrupt ones, list them and missing ones with the files and users they affect',
    details:
      'The storage catalog reads the blob store a page at a time (MinIO or the blob folder). A corrupt blob\n' +
      "(its bytes no longer hash to its key) is moved to the store's quarantine: downloads of it then fail\n" +
      'at once as missing instead of after sending wrong bytes, and the next upload of that content (a\n' +
      'backup client sending the file again) stores it anew. Missing blobs are those stored versions name\n' +
      'but the store lacks. Progress on stderr, a JSON summary on stdout (with the rate in GB per minute);\n' +
      'exit 1 if anything is corrupt, missing or unreadable.',
    options: {
      'page-mb': {
        type: 'string',
        value: 'N',
        description: 'MB read per request to the storage catalog (default 256; progress moves once per page)',
      },
    },
    storageCatalog: true,
    prepare(o) {
      const pageMb = wholeNumber(o, 'page-mb') ?? 256;
      if (pageMb < 1) throw new UsageError(`--page-mb must be at least 1 (got ${pageMb})`);
      return async (rpc) => {
        const { verifyBlobs } = await import('../verify/verify-blobs.js');
        const summary = await verifyBlobs(rpc, pageMb * 1024 * 1024);
        return summary.corrupt.length || summary.missing.length || summary.failed.length
          ? new FailedResult(summary)
          : summary;
      };
    },
  },
];
