/**
 * The zip format's records (APPNOTE 6.3.x), as this writer lays them out: every entry STORED
 * (method 0) with its sizes and CRC-32 in the local header (no data descriptor), the UTF-8 name
 * flag set, a DOS time from the mtime in UTC plus an extended-timestamp extra field (0x5455), and
 * fixed version and attribute fields, so the same entries always give the same bytes. Zip64 extra
 * fields appear only where a size or offset does not fit in 32 bits; the zip64 end record and its
 * locator only when the entry count or the central directory's offset or size needs them.
 */

/** Field value meaning "see the zip64 extra field" (and the largest value a 32-bit field keeps). */
export const MAX32 = 0xffffffff;
export const MAX16 = 0xffff;

const LOCAL_SIG = 0x04034b50;
const CENTRAL_SIG = 0x02014b50;
const ZIP64_END_SIG = 0x06064b50;
const ZIP64_LOCATOR_SIG = 0x07064b50;
const END_SIG = 0x06054b50;

const LOCAL_FIXED = 30;
const CENTRAL_FIXED = 46;
const ZIP64_END_LENGTH = 56;
const ZIP64_LOCATOR_LENGTH = 20;
const END_LENGTH = 22;
/** 0x5455 header (4) + flags (1) + mtime (4), the same in local and central headers. */
const TIMESTAMP_EXTRA = 9;

/** bit 11: names are UTF-8 */
const FLAGS = 0x0800;
/** 2.0 (folders), or 4.5 when the entry carries zip64 fields */
const VERSION_NEEDED = 20;
const VERSION_NEEDED_ZIP64 = 45;
/** made by: Unix (3, so the external attributes carry a mode), spec 4.5 */
const VERSION_MADE_BY = (3 << 8) | 45;
/** -rw-r--r-- regular file */
const FILE_ATTRIBUTES = (0o100644 << 16) >>> 0;
/** drwxr-xr-x plus the MS-DOS directory bit */
const DIR_ATTRIBUTES = ((0o040755 << 16) | 0x10) >>> 0;

/** What the records of one entry depend on. */
export interface RecordEntry {
  /** the entry name as stored (folders end in '/') */
  name: Buffer;
  dir: boolean;
  size: number;
  crc32: number;
  /** unix seconds, already clamped by clampTime */
  mtime: number;
  /** offset of the local header in the archive */
  offset: number;
}

/** Unix seconds as this writer stores them: whole, 0 .. 2^31-1 (the extended timestamp is signed 32-bit). */
export const clampTime = (mtime: number) => Math.min(Math.max(Math.floor(mtime), 0), 0x7fffffff);

/** MS-DOS date and time (2-second resolution, 1980..2107) of a unix time, in UTC. */
export function dosDateTime(mtime: number): { date: number; time: number } {
  const d = new Date(mtime * 1000);
  const year = d.getUTCFullYear();
  if (year < 1980) return { date: (1 << 5) | 1, time: 0 };
  if (year > 2107) return { date: (127 << 9) | (12 << 5) | 31, time: (23 << 11) | (59 << 5) | 29 };
  return {
    date: ((year - 1980) << 9) | ((d.getUTCMonth() + 1) << 5) | d.getUTCDate(),
    time: (d.getUTCHours() << 11) | (d.getUTCMinutes() << 5) | (d.getUTCSeconds() >> 1),
  };
}

const sizeNeedsZip64 = (e: RecordEntry) => e.size >= MAX32;
const offsetNeedsZip64 = (e: RecordEntry) => e.offset >= MAX32;
const versionNeeded = (e: RecordEntry) =>
  sizeNeedsZip64(e) || offsetNeedsZip64(e) ? VERSION_NEEDED_ZIP64 : VERSION_NEEDED;

/** Local header: both sizes go in the zip64 extra when the size does not fit. */
export const localHeaderLength = (nameLength: number, size: number) =>
  LOCAL_FIXED + nameLength + TIMESTAMP_EXTRA + (size >= MAX32 ? 20 : 0);

/** Central header: one 8-byte zip64 field per size (two) and offset that does not fit. */
export function centralHeaderLength(nameLength: number, size: number, offset: number): number {
  const fields = (size >= MAX32 ? 2 : 0) + (offset >= MAX32 ? 1 : 0);
  return CENTRAL_FIXED + nameLength + TIMESTAMP_EXTRA + (fields > 0 ? 4 + 8 * fields : 0);
}

function writeTimestamp(buf: Buffer, at: number, mtime: number): number {
  buf.writeUInt16LE(0x5455, at);
  buf.writeUInt16LE(5, at + 2);
  buf.writeUInt8(1, at + 4); // flags: modification time present
  buf.writeUInt32LE(mtime, at + 5);
  return at + TIMESTAMP_EXTRA;
}

/** The fields local and central headers share, version needed .. extra field length (26 bytes at `at`). */
function writeCommonFields(buf: Buffer, at: number, e: RecordEntry, extraLength: number): void {
  const { date, time } = dosDateTime(e.mtime);
  const size = sizeNeedsZip64(e) ? MAX32 : e.size;
  buf.writeUInt16LE(versionNeeded(e), at);
  buf.writeUInt16LE(FLAGS, at + 2);
  buf.writeUInt16LE(0, at + 4); // stored
  buf.writeUInt16LE(time, at + 6);
  buf.writeUInt16LE(date, at + 8);
  buf.writeUInt32LE(e.crc32, at + 10);
  buf.writeUInt32LE(size, at + 14); // compressed
  buf.writeUInt32LE(size, at + 18); // uncompressed
  buf.writeUInt16LE(e.name.length, at + 22);
  buf.writeUInt16LE(extraLength, at + 24);
}

export function localHeader(e: RecordEntry): Buffer {
  const zip64 = sizeNeedsZip64(e);
  const length = localHeaderLength(e.name.length, e.size);
  const buf = Buffer.allocUnsafe(length);
  buf.writeUInt32LE(LOCAL_SIG, 0);
  writeCommonFields(buf, 4, e, length - LOCAL_FIXED - e.name.length);
  e.name.copy(buf, LOCAL_FIXED);
  const at = writeTimestamp(buf, LOCAL_FIXED + e.name.length, e.mtime);
  if (zip64) {
    buf.writeUInt16LE(0x0001, at);
    buf.writeUInt16LE(16, at + 2);
    buf.writeBigUInt64LE(BigInt(e.size), at + 4); // uncompressed
    buf.writeBigUInt64LE(BigInt(e.size), at + 12); // compressed
  }
  return buf;
}

export function centralHeader(e: RecordEntry): Buffer {
  const bigSize = sizeNeedsZip64(e);
  const bigOffset = offsetNeedsZip64(e);
  const length = centralHeaderLength(e.name.length, e.size, e.offset);
  const buf = Buffer.allocUnsafe(length);
  buf.writeUInt32LE(CENTRAL_SIG, 0);
  buf.writeUInt16LE(VERSION_MADE_BY, 4);
  writeCommonFields(buf, 6, e, length - CENTRAL_FIXED - e.name.length);
  buf.writeUInt16LE(0, 32); // comment length
  buf.writeUInt16LE(0, 34); // disk number start
  buf.writeUInt16LE(0, 36); // internal attributes
  buf.writeUInt32LE(e.dir ? DIR_ATTRIBUTES : FILE_ATTRIBUTES, 38);
  buf.writeUInt32LE(bigOffset ? MAX32 : e.offset, 42);
  e.name.copy(buf, CENTRAL_FIXED);
  let at = writeTimestamp(buf, CENTRAL_FIXED + e.name.length, e.mtime);
  if (bigSize || bigOffset) {
    buf.writeUInt16LE(0x0001, at);
    buf.writeUInt16LE(length - at - 4, at + 2);
    at += 4;
    if (bigSize) {
      buf.writeBigUInt64LE(BigInt(e.size), at); // uncompressed
      buf.writeBigUInt64LE(BigInt(e.size), at + 8); // compressed
      at += 16;
    }
    if (bigOffset) buf.writeBigUInt64LE(BigInt(e.offset), at);
  }
  return buf;
}

/** The archive's tail, after the central directory. */
export interface Tail {
  count: number;
  /** where the central directory starts */
  centralOffset: number;
  centralSize: number;
}

const tailNeedsZip64 = (t: Tail) => t.count >= MAX16 || t.centralOffset >= MAX32 || t.centralSize >= MAX32;

export const tailLength = (t: Tail) => (tailNeedsZip64(t) ? ZIP64_END_LENGTH + ZIP64_LOCATOR_LENGTH : 0) + END_LENGTH;

/** [zip64 end of central directory record, zip64 locator,] end of central directory record. */
export function tail(t: Tail): Buffer {
  const buf = Buffer.alloc(tailLength(t));
  let at = 0;
  if (tailNeedsZip64(t)) {
    const zip64End = t.centralOffset + t.centralSize;
    buf.writeUInt32LE(ZIP64_END_SIG, 0);
    buf.writeBigUInt64LE(BigInt(ZIP64_END_LENGTH - 12), 4);
    buf.writeUInt16LE(VERSION_MADE_BY, 12);
    buf.writeUInt16LE(VERSION_NEEDED_ZIP64, 14);
    // 16: this disk, 20: disk with the central directory (both 0)
    buf.writeBigUInt64LE(BigInt(t.count), 24); // entries on this disk
    buf.writeBigUInt64LE(BigInt(t.count), 32); // entries
    buf.writeBigUInt64LE(BigInt(t.centralSize), 40);
    buf.writeBigUInt64LE(BigInt(t.centralOffset), 48);
    at = ZIP64_END_LENGTH;
    buf.writeUInt32LE(ZIP64_LOCATOR_SIG, at);
    // at + 4: disk with the zip64 end record (0)
    buf.writeBigUInt64LE(BigInt(zip64End), at + 8);
    buf.writeUInt32LE(1, at + 16); // total disks
    at += ZIP64_LOCATOR_LENGTH;
  }
  buf.writeUInt32LE(END_SIG, at);
  // at + 4: this disk, at + 6: disk with the central directory (both 0)
  buf.writeUInt16LE(Math.min(t.count, MAX16), at + 8);
  buf.writeUInt16LE(Math.min(t.count, MAX16), at + 10);
  buf.writeUInt32LE(Math.min(t.centralSize, MAX32), at + 12);
  buf.writeUInt32LE(Math.min(t.centralOffset, MAX32), at + 16);
  // at + 20: comment length (0)
  return buf;
}
