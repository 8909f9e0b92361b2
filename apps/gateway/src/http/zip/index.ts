/**
 * The gateway's zip writer: STORED entries with sizes and CRCs known up front, so an archive's
 * length and ETag are known before its first byte and any byte range of it can be generated alone.
 */
export { planZip } from './plan.js';
export { writeZip } from './write.js';
export { type WriteZipOptions, type ZipEntries, ZipError, type ZipErrorCode, type ZipFileEntry, type ZipPlan, type ZipRange } from './types.js';
