/**
 * Who may use a user's storage, whatever the door (storage interface, pages, WebDAV, share rooms):
 * the user named in the URL must be the one who logged in, and the storage policy must let them in.
 */
import { type AuthenticatedUser, forbidden } from '@burrow/contracts';

/** The policy of the storage interface: who may use it at all. */
export function checkStoragePolicy(user: AuthenticatedUser): void {
  if (!user.enabled) throw forbidden('this account is disabled');
  if (!user.webapi_enable) throw forbidden("the web interface is turned off for this user's group");
}

/** Does the user named in the URL (username or email, any case) denote this user? */
export const namesUser = (named: string, user: AuthenticatedUser) => {
  const key = named.toLowerCase();
  return key === user.username.toLowerCase() || key === user.email.toLowerCase();
};
