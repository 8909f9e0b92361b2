/**
 * Session extensions (`?se=`, made by `?format=session_extension&ip=`): a signed token that opens
 * one file, GET only, from one address, while the file lives. The storage-read controller makes
 * them; the storage user guard checks them.
 */
import { unmapIPv4 } from '@burrow/runtime';

/** A session extension: who made it, for which resource, for which address. */
export interface ExtensionClaims {
  u: string;
  st: string;
  /** the resource: the decoded path segments after `/storage/`, joined by `/` */
  r: string;
  /** what kind of resource: extensions are made for files only */
  k: 'file';
  ip: string;
  /** the device's incarnation and the file's life (see `FileIncarnation`) */
  di: string;
  g: number;
}

/** The resource a session extension names (the user segment is the URL's, as given). */
export const extensionResource = (segments: string[]) => segments.join('/');

/**
 * The address an extension is bound to, written as `clientAddress` will see the third party: IPv4
 * unmapped, IPv6 lower-case (Node writes peer addresses lower-case; a person may type `2001:DB8::1`).
 */
export const extensionAddress = (ip: string) => unmapIPv4(ip.toLowerCase());
