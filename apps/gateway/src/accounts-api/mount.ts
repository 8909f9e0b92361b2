/** Interface A is served at the root and at /apis/accounts/v1/ (where existing clients point). */
export { INTERFACE_A_MOUNTS as ACCOUNTS_API_MOUNTS } from '../partner-access/interface-a.js';
