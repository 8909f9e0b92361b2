/** `GET /openapi.json`: the OpenAPI 3.1 document, generated from the declared schemas. No authentication. */
import { Controller, Get } from '@nestjs/common';
import { openApiDocument } from '../openapi/document.js';
import type { OpenApiDocument } from '../openapi/types.js';

@Controller()
export class OpenApiController {
  @Get('openapi.json')
  document(): OpenApiDocument {
    return openApiDocument();
  }
}
