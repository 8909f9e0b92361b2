/**
 * The checksums Burrow keeps with each file version beside its own sha256 (the blob key): SHA-1
 * and MD5, what ownCloud's and Nextcloud's clients and rclone verify transfers with
 * (`oc:checksums` in PROPFIND, `OC-Checksum` on GET). Computed while the upload streams in.
 * Versions committed before Burrow computed them have none.
 */
export interface FileChecksums {
  /** lowercase hex */
  sha1: string;
  /** lowercase hex */
  md5: string;
}

/** `{ checksums }` when there are some, else nothing: for spreading into documents and replies. */
export const withChecksums = (source: { checksums?: FileChecksums | null }): { checksums?: FileChecksums } =>
  source.checksums ? { checksums: source.checksums } : {};

/** The owncloud form: `SHA1:<hex> MD5:<hex>`, what rclone parses from `oc:checksum`. */
export const ocChecksums = (c: FileChecksums) => `SHA1:${c.sha1} MD5:${c.md5}`;
