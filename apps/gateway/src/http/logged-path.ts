/** A request path as the request log shows it: a set-password link's token is a credential, never logged. */
export const loggedPath = (path: string): string => path.replace(/^(\/set-password\/)[^/]+/i, '$1[token]');
