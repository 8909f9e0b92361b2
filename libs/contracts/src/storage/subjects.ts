/** Bus subjects of the storage catalog: `storage-catalog.*` goes to its queue group. */

/** Called by operators (the e2e harness, an admin tool) only; the gateway never routes to them. */
export const StorageOperatorSubjects = {
  /** runs the purger now (deleted users' storage cleared, removed devices and due versions purged): a PurgeReport */
  runPurge: 'storage-catalog.purge.run',
  /** runs the blob reaper now (blobs nothing references, left by purges and refused commits): a BlobReapReport */
  reapBlobs: 'storage-catalog.blobs.reap',
  /** reads a page of blobs whole and checks them against their keys, quarantining corrupt ones, and finds referenced blobs that are missing: a VerifyBlobsPage */
  verifyBlobs: 'storage-catalog.blobs.verify',
} as const;

export const StorageSubjects = {
  health: 'storage-catalog.health',
  /** a partner enables or disables one of a user's share rooms (interface A) */
  setShareEnabled: 'storage-catalog.shares.set-enabled',
  /** a partner sets or removes the password of one of a user's share rooms (interface A) */
  setSharePassword: 'storage-catalog.shares.set-password',
  // devices
  registerDevice: 'storage-catalog.devices.register',
  removeDevice: 'storage-catalog.devices.remove',
  /** the user, their figures and their devices */
  root: 'storage-catalog.root',
  // files and folders
  prepareUpload: 'storage-catalog.files.prepare',
  commitFile: 'storage-catalog.files.commit',
  /** a file, or a folder (path ending with `/`) and everything under it */
  deletePath: 'storage-catalog.files.delete',
  fileVersion: 'storage-catalog.files.version',
  fileVersions: 'storage-catalog.files.versions',
  listFolder: 'storage-catalog.folders.list',
  walkFolder: 'storage-catalog.folders.walk',
  folderSummary: 'storage-catalog.folders.summary',
  // what WebDAV needs beyond the storage interface
  /** makes an empty folder (MKCOL): its parent must exist */
  makeFolder: 'storage-catalog.folders.make',
  /** a file or a folder, whichever the path names, with a page of a folder's members and the user's quota (PROPFIND) */
  stat: 'storage-catalog.paths.stat',
  /** copies or moves a file or a folder within the user's storage, metadata only (COPY, MOVE) */
  transfer: 'storage-catalog.paths.transfer',
  /** sets and removes dead properties of a file or a folder (PROPPATCH) */
  setProperties: 'storage-catalog.paths.properties',
  // share rooms of the logged-in user
  listShares: 'storage-catalog.shares.list',
  createShare: 'storage-catalog.shares.create',
  updateShare: 'storage-catalog.shares.update',
  deleteShare: 'storage-catalog.shares.delete',
  /** a room by its public address (no login) */
  openShare: 'storage-catalog.shares.open',
  ...StorageOperatorSubjects,
} as const;
