/**
 * Request input for controllers, parsed with the declared schemas (contracts) at the edge: a JSON
 * body (whatever its content type) and the query string. Every shape problem is one 400 naming
 * every field (`parseRequest`, `parseQuery`).
 */
import { type ParseOptions, parseQuery, parseRequest, type z } from '@burrow/contracts';
import { createParamDecorator, type ExecutionContext } from '@nestjs/common';
import type { Request } from 'express';
import { readJsonBody } from './json-body.js';

/** Parses a body read with `JsonBody`; an empty (or null) body counts as `{}` unless `required`. */
export function parseBody<S extends z.ZodType>(schema: S, body: unknown, options: BodyOptions = {}): z.output<S> {
  return parseRequest(schema, (body === undefined || body === null) && !options.required ? {} : body, {
    field: options.field,
    nested: options.nested,
  });
}

export interface BodyOptions extends Pick<ParseOptions, 'field' | 'nested'> {
  /** an empty body is a 400 (else it counts as `{}`) */
  required?: boolean;
}

/** The JSON body parsed with `schema` (see `parseBody`). */
const BodyParam = createParamDecorator(async (options: BodyOptions & { parser: z.ZodType }, ctx: ExecutionContext) =>
  parseBody(options.parser, await readJsonBody(ctx.switchToHttp().getRequest<Request>()), options),
);

/**
 * The JSON body parsed with `schema` (see `parseBody`). The schema travels under a key of our own:
 * Nest would take `{schema}` for its own Standard Schema option, and a bare zod schema (it has a
 * `transform` method) for a pipe.
 */
export const Body = (schema: z.ZodType, options: BodyOptions = {}): ParameterDecorator =>
  BodyParam({ parser: schema, ...options });

const QueryParam = createParamDecorator((options: { parser: z.ZodObject }, ctx: ExecutionContext) =>
  parseQuery(options.parser, ctx.switchToHttp().getRequest<Request>().query as Record<string, unknown>),
);

/** The query string parsed with `schema` (a zod object of the parameters the route knows). */
export const Query = (schema: z.ZodObject): ParameterDecorator => QueryParam({ parser: schema });
