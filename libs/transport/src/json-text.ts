/**
 * Replies that are already JSON text, relayed by the gateway without being parsed and written again.
 *
 * A read that the gateway answers with what a service returned (a page of 1,000 users) used to be
 * serialized three times: by the service's transport into the reply, parsed by the gateway's
 * transport, and serialized again by Express. A handler that returns `JsonText` serializes its
 * reply once; the reply envelope carries that text as it is, and `RpcClient.relay` hands it to the
 * gateway as text, which writes it to the HTTP response.
 *
 * The envelope stays a plain Nest reply, `{"id":…,"isDisposed":true,"err":null,"response":<text>}`,
 * so any Nest client reads it (as JSON: it then gets the parsed value). Nest's own serializer writes
 * `err` first, never `id`, so the `{"id":"` prefix tells this module's readers that the envelope is
 * one of these and where the text starts, without parsing it. Every other reply is read as before.
 */
import { JsonText } from '@burrow/contracts';
import { type IncomingResponse, NatsResponseJSONDeserializer } from '@nestjs/microservices';
import { NatsRecordSerializer } from '@nestjs/microservices/serializers/nats-record.serializer.js';

const PREFIX = '{"id":"';
const AFTER_ID = '","isDisposed":true,"err":null,"response":';
/** Nest's packet ids (UUIDs); any other id is written by Nest's serializer. */
const SAFE_ID = /^[A-Za-z0-9_-]{1,64}$/;

interface ReplyPacket {
  id?: unknown;
  err?: unknown;
  response?: unknown;
  isDisposed?: boolean;
}

/** The reply's envelope as JSON: a `JsonText` response is written as it is, anything else as Nest does. */
export function serializeReply(packet: ReplyPacket): string {
  const { id, err, response, isDisposed } = packet;
  if (
    response instanceof JsonText &&
    (err === null || err === undefined) &&
    isDisposed &&
    typeof id === 'string' &&
    SAFE_ID.test(id)
  ) {
    return `${PREFIX}${id}${AFTER_ID}${response.text}}`;
  }
  return JSON.stringify(packet);
}

/** Reads a reply envelope; the response of one written from a `JsonText` stays `JsonText`. */
export function deserializeReply(raw: string): IncomingResponse {
  if (raw.startsWith(PREFIX)) {
    const end = raw.indexOf(AFTER_ID, PREFIX.length);
    if (end > 0 && raw.endsWith('}')) {
      return {
        id: raw.slice(PREFIX.length, end),
        isDisposed: true,
        err: null,
        response: JsonText.trusted(raw.slice(end + AFTER_ID.length, -1)),
      };
    }
  }
  return JSON.parse(raw) as IncomingResponse;
}

/** The NATS server's serializer: Nest's, except for `JsonText` replies. */
export class JsonTextReplySerializer extends NatsRecordSerializer {
  override serialize(packet: ReplyPacket & { data?: unknown }): { data: string; headers?: unknown } {
    if (packet.response instanceof JsonText) return { data: serializeReply(packet) };
    return super.serialize(packet) as { data: string; headers?: unknown };
  }
}

/** The NATS client's deserializer: Nest's, except that a `JsonText` reply is not parsed. */
export class JsonTextReplyDeserializer extends NatsResponseJSONDeserializer {
  override deserialize(
    message: Parameters<NatsResponseJSONDeserializer['deserialize']>[0],
    options?: Record<string, unknown>,
  ) {
    const bytes = message.data;
    if (bytes.length > PREFIX.length && startsWithPrefix(bytes))
      return deserializeReply(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length).toString('utf8'));
    return super.deserialize(message, options);
  }
}

const PREFIX_BYTES = Buffer.from(PREFIX);
function startsWithPrefix(bytes: Uint8Array): boolean {
  for (let i = 0; i < PREFIX_BYTES.length; i++) if (bytes[i] !== PREFIX_BYTES[i]) return false;
  return true;
}
