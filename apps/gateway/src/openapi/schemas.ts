/**
 * JSON Schemas for the OpenAPI document, generated from the same zod schemas the parsers use
 * (contracts). Every schema with an `id` becomes a component; anything else is inlined, with
 * references to components kept as `$ref`s. Schemas describe what the parser outputs (numbers
 * as numbers, booleans as booleans: the lenient forms it also accepts are described in the
 * document's introduction), except where a body's accepted forms differ in kind (`INPUT_FORM`).
 */
import { z } from '@burrow/contracts';
import type { Schema } from '../http/openapi-types.js';

/** Components documented as accepted, not as parsed (the password body: a string or an object). */
const INPUT_FORM = new Set(['ChangePasswordBody']);

const COMPONENTS = '#/components/schemas/';

type OverrideContext = {
  zodSchema: { _zod: { def: { type: string; catchall?: { _zod?: { def?: { type?: string } } } } } };
  jsonSchema: Schema;
};

/** Objects that ignore unknown keys say so: only strict objects (partner settings) forbid them. */
function override(ctx: OverrideContext): void {
  const def = ctx.zodSchema._zod.def;
  if (
    def.type === 'object' &&
    ctx.jsonSchema.additionalProperties === false &&
    def.catchall?._zod?.def?.type !== 'never'
  ) {
    delete ctx.jsonSchema.additionalProperties;
  }
}

function clean(schema: Schema): Schema {
  const { $schema: _s, $id: _i, ...rest } = schema;
  return JSON.parse(JSON.stringify(rest).replaceAll('"#/$defs/', `"${COMPONENTS}`)) as Schema;
}

/** Every registered schema (those with an `id`), as components. */
export function componentSchemas(): Record<string, Schema> {
  const convert = (io: 'input' | 'output') =>
    z.toJSONSchema(z.globalRegistry, {
      io,
      uri: (id) => `${COMPONENTS}${id}`,
      override: override,
      unrepresentable: 'any',
    }).schemas as Record<string, Schema>;
  const output = convert('output');
  const input = convert('input');
  return Object.fromEntries(
    Object.keys(output)
      .sort()
      .map((id) => [id, clean(INPUT_FORM.has(id) ? input[id] : output[id])]),
  );
}

/** The JSON Schema of one zod schema: a `$ref` to its component if it has an id, else inline. */
export function jsonSchema(schema: z.ZodType, io: 'input' | 'output' = 'output'): Schema {
  const id = z.globalRegistry.get(schema)?.id;
  if (id) return { $ref: `${COMPONENTS}${id}` };
  const converted = z.toJSONSchema(schema, { io, override: override, unrepresentable: 'any' }) as Schema;
  const { $defs: _d, ...rest } = converted;
  return clean(rest);
}

/** A query parameter's schema: what it parses to, or the text it takes when that is not representable. */
export function parameterSchema(schema: z.ZodType): Schema {
  const output = jsonSchema(schema, 'output');
  return Object.keys(output).filter((k) => k !== 'description').length ? output : jsonSchema(schema, 'input');
}
