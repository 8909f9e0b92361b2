/** `GET /openapi.json`: the OpenAPI 3.1 document, generated from the route declarations. No authentication. */
import { Controller, Inject } from '@nestjs/common';
import { Route } from '../http/route.js';
import type { OpenApiDocument } from '../http/openapi-types.js';
import { OPS_ROUTES } from './ops.routes.js';

/** The provider of the document (a function: it is built on first request, from every route the gateway serves). */
export const OPENAPI_DOCUMENT = Symbol('OPENAPI_DOCUMENT');

@Controller()
export class OpenApiController {
  constructor(@Inject(OPENAPI_DOCUMENT) private readonly document: () => OpenApiDocument) {}

  @Route(OPS_ROUTES.openapi)
  serve(): OpenApiDocument {
    return this.document();
  }
}
