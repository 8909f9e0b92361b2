/** The storage URLs' base32 of names: shared with the clients that build those URLs (libs/contracts). */
export { b32decode, b32encode } from '@burrow/contracts';
