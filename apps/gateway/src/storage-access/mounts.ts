/** Where interface B lives: the first path segment of each of its URL families. */

/** a user's storage: `/storage/<b32 user>/<device>/<path>` */
export const STORAGE_MOUNT = 'storage';
/** a public share room: `/share/<b32 share id>/<room key>/<path>` */
export const SHARE_MOUNT = 'share';
/** Where the management appliance and the mobile app send people for a room (by the raw share id). */
export const BROWSE_SHARE_MOUNT = 'browse/share';
/** a single-file link: `/link/<token>/<file name>` */
export const LINK_MOUNT = 'link';
