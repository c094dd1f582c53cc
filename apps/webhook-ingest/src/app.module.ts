import { Module } from '@nestjs/common';
import { PlatformModule } from '@ums/platform';

/** Root module of webhook-ingest; features are added as modules under src/<feature>/. */
@Module({
  imports: [
    PlatformModule.forService({ service: 'webhook-ingest', kafka: true, mysql: false, redis: false }),
  ],
})
export class WebhookIngestModule {}
