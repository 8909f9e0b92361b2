/**
 * Small builders for the hand-written part of the OpenAPI document (prose and examples); every
 * schema in it comes from a zod schema (schemas.ts).
 */
import type { ErrorBody, z } from '@burrow/contracts';
import { JSON_BODY_LIMIT } from '../http/json-body.js';
import { jsonSchema, parameterSchema } from './schemas.js';
import type {
  Example,
  Header,
  MediaType,
  Parameter,
  Reference,
  RequestBody,
  Response,
  Schema,
} from '../http/openapi-types.js';

export const JSON_TYPE = 'application/json';
/** The spec's content type for request bodies; real clients send application/json (both parsed alike). */
export const SPEC_BODY_TYPE = 'text/javascript';

export const responseRef = (name: string): Reference => ({ $ref: `#/components/responses/${name}` });
export const ERROR_SCHEMA: Schema = { $ref: '#/components/schemas/Error' };

const toSchema = (schema: z.ZodType | Schema): Schema => ('_zod' in schema ? jsonSchema(schema as z.ZodType) : schema);
export const listOf = (schema: z.ZodType, description: string): Schema => ({
  type: 'array',
  description,
  items: jsonSchema(schema),
});

export const ex = (summary: string, value: unknown): Example => ({ summary, value });
export const err = (reason: string, extra: Omit<ErrorBody, 'reason'> = {}): ErrorBody => ({ reason, ...extra });

export function content(schema: z.ZodType | Schema, examples: Record<string, Example>): Record<string, MediaType> {
  return { [JSON_TYPE]: { schema: toSchema(schema), examples } };
}

export function reply(
  description: string,
  schema: z.ZodType | Schema,
  examples: Record<string, Example>,
  headers?: Record<string, Header>,
): Response {
  return { description, ...(headers ? { headers } : {}), content: content(schema, examples) };
}

/** A response with the Error body; every 4xx/5xx uses it. */
export function error(description: string, examples: Record<string, Example>): Response {
  return reply(description, ERROR_SCHEMA, examples);
}

export const empty = (description: string): Response => ({ description: `${description} The body is empty.` });

/** A JSON request body, parsed the same whatever the content type. */
export function body(
  description: string,
  schema: z.ZodType,
  examples: Record<string, Example>,
  required = true,
): RequestBody {
  const media = { schema: jsonSchema(schema), examples };
  return {
    description: `${description} Parsed as JSON whatever the content type (application/json, text/javascript, or a form content type holding JSON); at most ${JSON_BODY_LIMIT} bytes.`,
    required,
    content: { [JSON_TYPE]: media, [SPEC_BODY_TYPE]: media },
  };
}

/**
 * The query parameters a route declares (a zod object, as its controller parses them), each with
 * the schema generated from it; descriptions come from the schema or `notes`.
 */
export function queryParameters(
  query: z.ZodObject,
  notes: Record<string, { description?: string; example?: unknown; required?: boolean }> = {},
): Parameter[] {
  return Object.entries(query.shape as Record<string, z.ZodType>).map(([name, schema]) => {
    const generated = parameterSchema(schema);
    const { description: fromSchema, ...typed } = generated;
    const note = notes[name] ?? {};
    return {
      name,
      in: 'query' as const,
      description: note.description ?? (fromSchema as string | undefined) ?? name,
      required: note.required ?? !schema.safeParse(undefined).success,
      schema: typed,
      ...(note.example === undefined ? {} : { example: note.example }),
    };
  });
}

export function pathParameter(name: string, description: string, schema: Schema, example: unknown): Parameter {
  return { name, in: 'path', description, required: true, schema, example };
}
