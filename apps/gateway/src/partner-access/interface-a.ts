/** Interface A is served at the root and at /apis/accounts/v1/ (where existing clients point): every module serving it mounts here. */
export const INTERFACE_A_MOUNTS = ['', 'apis/accounts/v1'];
