/**
 * A service's reply written to the HTTP response as the JSON text the service made (`JsonText`,
 * relayed by `RpcClient.relay`): the same bytes and headers `res.json` would write for the value,
 * without parsing and serializing it again here.
 */
import type { JsonText } from '@burrow/contracts';
import type { Response } from 'express';

/** Use with `@Res({ passthrough: true })`: returns the body for Nest to send. */
export function relayedJson(res: Response, reply: JsonText): string {
  // what `res.json` does; `res.send` then adds `charset=utf-8`
  if (!res.get('Content-Type')) res.set('Content-Type', 'application/json');
  return reply.text;
}
