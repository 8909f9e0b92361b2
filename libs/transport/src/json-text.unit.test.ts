import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { JsonText } from '@burrow/contracts';
import { IncomingResponseDeserializer, NatsResponseJSONDeserializer } from '@nestjs/microservices';
import { deserializeReply, JsonTextReplyDeserializer, JsonTextReplySerializer, serializeReply } from './json-text.js';

const ID = '5f0c7c1e-6d0b-4a51-9a1e-0b8a4f3c2d11';
const value = [{ username: 'nina', name: 'Nina "N" é', quota: 12.5, group_id: null }];

/** A NATS message as the client library hands it over. */
const natsMessage = (data: string) => {
  const bytes = new TextEncoder().encode(data);
  return { data: bytes, json: () => JSON.parse(data) } as never;
};

describe('JsonText reply envelope', () => {
  it('is a plain Nest reply: a stock Nest client reads the value out of it', async () => {
    const raw = serializeReply({ err: null, response: JsonText.of(value), isDisposed: true, id: ID });
    const stock = new IncomingResponseDeserializer().deserialize(JSON.parse(raw));
    assert.deepEqual(stock, { id: ID, isDisposed: true, err: null, response: value });
    assert.deepEqual(await new NatsResponseJSONDeserializer().deserialize(natsMessage(raw)), {
      id: ID,
      isDisposed: true,
      err: null,
      response: value,
    });
  });

  it('carries the text as it is, and is read back without being parsed', async () => {
    const text = JsonText.of(value);
    const raw = serializeReply({ err: null, response: text, isDisposed: true, id: ID });
    const read = deserializeReply(raw);
    assert.equal(read.id, ID);
    assert.ok(read.response instanceof JsonText);
    assert.equal((read.response as JsonText).text, text.text);
    const overNats = (await new JsonTextReplyDeserializer().deserialize(
      natsMessage(
        new JsonTextReplySerializer().serialize({ err: null, response: text, isDisposed: true, id: ID }).data,
      ),
    )) as { id: string; response: JsonText };
    assert.equal(overNats.id, ID);
    assert.equal(overNats.response.text, text.text);
  });

  it("leaves every other reply to Nest's format", async () => {
    for (const packet of [
      { err: null, response: value, isDisposed: true, id: ID },
      { err: { status: 404, reason: 'nothing here' }, isDisposed: true, id: ID },
      // a string that reads like the envelope is still a string
      { err: null, response: `{"id":"${ID}","isDisposed":true,"err":null,"response":1}`, isDisposed: true, id: ID },
      // an id this module would not write verbatim
      { err: null, response: JsonText.of(value), isDisposed: true, id: 'not"safe' },
    ]) {
      const raw = serializeReply(packet);
      assert.ok(raw.startsWith('{"err"'), raw);
      const read = deserializeReply(raw);
      assert.deepEqual(JSON.parse(JSON.stringify(read)), JSON.parse(JSON.stringify(packet)));
      assert.deepEqual(await new JsonTextReplyDeserializer().deserialize(natsMessage(raw)), JSON.parse(raw));
    }
  });

  it('a JsonText inside another value serializes as the value it holds', () => {
    assert.equal(JSON.stringify({ page: JsonText.of(value) }), JSON.stringify({ page: value }));
    assert.throws(() => JsonText.of(undefined), TypeError);
  });
});
