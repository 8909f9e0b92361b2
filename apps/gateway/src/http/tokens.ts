/** Injection tokens of what the gateway's modules share (provided by HttpModule). */
export const RPC = Symbol('RPC');
export const BLOBS = Symbol('BLOBS');
export const GATEWAY_LOGGER = Symbol('GATEWAY_LOGGER');
export const BUS_STATUS = Symbol('BUS_STATUS');
