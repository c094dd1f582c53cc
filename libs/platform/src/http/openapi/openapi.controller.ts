import { Controller, Get } from '@nestjs/common';
import { ApiExcludeController, type OpenAPIObject } from '@nestjs/swagger';
import { Public } from '../../auth/auth.decorators';
import { OpenApiPublication } from './openapi-publication';

/** The service's OpenAPI document (its reference page, /docs, is served by SwaggerModule: serveOpenApi). */
@ApiExcludeController()
@Controller()
export class OpenApiController {
  constructor(private readonly publication: OpenApiPublication) {}

  @Public('the API description holds no data, and clients read it before they hold a key')
  @Get('openapi.json')
  document(): OpenAPIObject {
    return this.publication.document();
  }
}
