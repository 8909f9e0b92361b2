/** Injection tokens of what the gateway's modules share (provided by HttpModule, gateway.http.module.ts). */
export const RPC = Symbol('RPC');
export const BLOBS = Symbol('BLOBS');
export const GATEWAY_LOGGER = Symbol('GATEWAY_LOGGER');
export const BUS_STATUS = Symbol('BUS_STATUS');
/** the data directory's free space (DiskSpace) */
export const DISK = Symbol('DISK');
/** the signer of sessions, links and session extensions (TokenSigner) */
export const SIGNER = Symbol('SIGNER');
/** storage-interface cookie sessions (Sessions) */
export const SESSIONS = Symbol('SESSIONS');
/** BURROW_PUBLIC_URL without a trailing slash, or '' (links are then relative to the host). */
export const PUBLIC_URL = Symbol('PUBLIC_URL');
/** every replica heard from (ReplicaRegistry, for /readyz) */
export const REPLICAS = Symbol('REPLICAS');
/** what this process last heard of users' devices and quota, to skip an upload's prepare (UploadHints) */
export const UPLOAD_HINTS = Symbol('UPLOAD_HINTS');
