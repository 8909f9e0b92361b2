/** Limits of the storage catalog and the storage interface, declared once. */

/** A device name: one path segment a user can read. */
export const DEVICE_NAME_MAX_LENGTH = 255;
/** One path segment (folder or file name), in UTF-8 bytes. */
export const PATH_SEGMENT_MAX_BYTES = 255;
/** A whole path within a device, in UTF-8 bytes. */
export const PATH_MAX_BYTES = 4096;
/** Folder levels within a device. */
export const PATH_MAX_DEPTH = 64;
/** Entries per page of a folder listing or a subtree walk on the bus. */
export const LISTING_PAGE_MAX = 5000;
export const LISTING_PAGE_DEFAULT = 1000;
/** Devices per user (a listing is never longer). */
export const DEVICES_MAX = 1000;
/** Share rooms per user, and shared folders per room. */
export const SHARE_ROOMS_MAX = 1000;
export const SHARE_ROOM_DIRS_MAX = 100;
export const ROOM_NAME_MAX_LENGTH = 255;
export const ROOM_DESCRIPTION_MAX_LENGTH = 10_000;
export const ROOM_KEY_PATTERN = /^[A-Za-z0-9_-]{1,64}$/;
/** Versions listed for one file. */
export const VERSIONS_MAX = 10_000;
/** WebDAV dead properties of one file or folder: how many, and their names and values together, in UTF-8 bytes. */
export const DEAD_PROPERTIES_MAX = 100;
export const DEAD_PROPERTIES_MAX_BYTES = 64 * 1024;
/**
 * WebDAV dead properties of one user, over all their files and folders (names and values, UTF-8
 * bytes), by default (BURROW_DAV_PROPERTIES_MAX_BYTES_PER_USER): about 100,000 files carrying
 * the four Win32 properties Windows sets (~300 bytes a file).
 */
export const DEAD_PROPERTIES_PER_USER_MAX_BYTES = 32 * 1024 * 1024;
/**
 * Dead-property sets one user may write per UTC day (the bytes of each set written, which the
 * event log keeps for good), by default (BURROW_DAV_PROPERTY_WRITES_MAX_BYTES_PER_DAY).
 */
export const DEAD_PROPERTY_WRITES_PER_DAY_MAX_BYTES = 32 * 1024 * 1024;
