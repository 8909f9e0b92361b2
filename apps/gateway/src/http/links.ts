/**
 * Single-file share links: `POST <file url>` answers `/link/<token>/<file name>`, valid 3 days
 * (the spec's limit), for that file's version at the time (a later upload does not change what the
 * link serves). The token is signed; it names the user, the stamp of their password (a password
 * change revokes links as it ends sessions), the device, the path and the version.
 */
export const LINK_TTL_SECONDS = 3 * 24 * 60 * 60;
export const LINK_MOUNT = 'link';

export interface LinkClaims {
  u: string;
  st: string;
  d: string;
  p: string;
  v: number;
}

/** The link's path: the token, then the file's name (so a browser saves it under that name). */
export const linkPath = (token: string, name: string) => `/${LINK_MOUNT}/${token}/${encodeURIComponent(name)}`;
