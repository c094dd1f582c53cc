import type { OpenAPIObject } from '@nestjs/swagger';
import type { OpenApiInfo } from './openapi-document';

/**
 * The OpenAPI document a service serves: built from the application once it exists (createServiceApp),
 * before it listens. A service without `openApi` in its PlatformModule options has none.
 */
export class OpenApiPublication {
  private published: OpenAPIObject | undefined;

  constructor(readonly info: OpenApiInfo | undefined) {}

  publish(document: OpenAPIObject): void {
    this.published = document;
  }

  document(): OpenAPIObject {
    if (this.published === undefined) throw new Error('The OpenAPI document is served before it was built');
    return this.published;
  }
}
