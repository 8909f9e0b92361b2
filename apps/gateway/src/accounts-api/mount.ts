/** Interface A is served at the root and at /apis/accounts/v1/ (where existing clients point). */
export const ACCOUNTS_API_MOUNTS = ['', 'apis/accounts/v1'];
