import { Module } from '@nestjs/common';
import { OpenApiController } from './openapi.controller';

/** GET /openapi.json; PlatformModule imports it for a service given `openApi`. */
@Module({ controllers: [OpenApiController] })
export class OpenApiModule {}
