/** `GET /openapi.json`: the OpenAPI 3.1 document of interface A. No authentication. */
import { Controller, Get } from '@nestjs/common';
import { type OpenApiDocument, openApiDocument } from './openapi.js';

@Controller()
export class OpenApiController {
  @Get('openapi.json')
  document(): OpenApiDocument {
    return openApiDocument;
  }
}
