/** Bus subjects of the storage catalog: `storage-catalog.*` goes to its queue group. */
export const StorageSubjects = {
  health: 'storage-catalog.health',
  /** a partner enables or disables one of a user's share rooms (interface A) */
  setShareEnabled: 'storage-catalog.shares.set-enabled',
} as const;
