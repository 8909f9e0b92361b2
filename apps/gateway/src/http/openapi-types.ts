/** Just enough of OpenAPI 3.1's types to keep the generated document well formed. */
export type Schema = { [keyword: string]: unknown };
export interface Reference {
  $ref: string;
}
export interface Example {
  summary: string;
  value: unknown;
}
export interface MediaType {
  schema: Schema;
  examples: Record<string, Example>;
}
export interface Header {
  description: string;
  schema: Schema;
  example?: string;
}
export interface Response {
  description: string;
  headers?: Record<string, Header>;
  content?: Record<string, MediaType>;
}
export interface Parameter {
  name: string;
  in: 'path' | 'query' | 'header';
  description: string;
  required?: boolean;
  schema: Schema;
  example?: unknown;
}
export interface RequestBody {
  description: string;
  required: boolean;
  content: Record<string, MediaType>;
}
export interface Operation {
  operationId: string;
  tags: string[];
  summary: string;
  description?: string;
  security?: Record<string, string[]>[];
  parameters?: (Parameter | Reference)[];
  requestBody?: RequestBody;
  responses: Record<string, Response | Reference>;
  /**
   * Interface B parses its query by hand, leniently (CLIENT-FACTS: unknown parameters ignored, a
   * bare `?preview_48` key, `version=1cb=...`): the documented parameters have no zod schema.
   */
  'x-burrow-lenient-query'?: true;
}
export interface Server {
  url: string;
  description: string;
}
export const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const;
export type HttpMethod = (typeof HTTP_METHODS)[number];
export type PathItem = { summary?: string; description?: string; servers?: Server[]; 'x-webdav-methods'?: string[] } & {
  [M in HttpMethod]?: Operation;
};

export interface OpenApiDocument {
  openapi: '3.1.0';
  info: { title: string; version: string; summary: string; description: string };
  jsonSchemaDialect: string;
  servers: Server[];
  security: Record<string, string[]>[];
  tags: { name: string; description: string }[];
  paths: Record<string, PathItem>;
  /** requests Burrow makes to partners' endpoints (webhook deliveries) */
  webhooks?: Record<string, PathItem>;
  components: {
    schemas: Record<string, Schema>;
    responses: Record<string, Response>;
    parameters: Record<string, Parameter>;
    securitySchemes: Record<string, Schema>;
  };
}

/** The document's `paths` (paths.ts builds them from the route declarations). */
export type PathsFragment = Record<string, PathItem>;
