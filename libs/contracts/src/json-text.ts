/**
 * A reply already serialized as JSON. A handler whose reply the gateway writes to the HTTP
 * response as it is (a page of 1,000 users) returns one, so the reply is serialized once, not
 * serialized, parsed and serialized again; the transport (`@burrow/transport`, json-text.ts)
 * carries the text as it is, and `RpcClient.call` parses it for callers that want the value.
 */
/** `T` is the type of the value the text holds (what `parse` gives back). */
export class JsonText<T = unknown> {
  /** keeps `T` in the type (it is never set) */
  declare readonly value?: T;

  private constructor(readonly text: string) {}

  /** The JSON text of `value`, made once here. */
  static of<T>(value: T): JsonText<T> {
    const text = JSON.stringify(value);
    if (text === undefined) throw new TypeError('JsonText.of: the value has no JSON form');
    return new JsonText<T>(text);
  }

  /** Text known to be JSON, such as the slice of a reply this module wrote. */
  static trusted<T = unknown>(text: string): JsonText<T> {
    return new JsonText<T>(text);
  }

  parse(): T {
    return JSON.parse(this.text) as T;
  }

  /** Inside another value, or sent by code that does not relay it, it serializes as what it holds. */
  toJSON(): T {
    return this.parse();
  }
}
