/** Stream names of the storage catalog (DESIGN §3). */
export const StorageStreams = {
  device: (deviceId: string) => `device-${deviceId}`,
  share: (userId: string) => `share-${userId}`,
} as const;

export const StorageStreamPrefixes = {
  device: 'device-',
  share: 'share-',
} as const;
