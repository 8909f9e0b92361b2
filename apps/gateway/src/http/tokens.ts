/** The gateway's handle on the bus (one RpcClient per process). */
export const RPC = Symbol('RPC');
export const GATEWAY_LOGGER = Symbol('GATEWAY_LOGGER');
export const GATEWAY_INFRA = Symbol('GATEWAY_INFRA');
