import { Module } from '@nestjs/common';
import { PlatformModule, SecretsConfig } from '@ums/platform';
import { CallbacksConfig } from './callbacks/callbacks.config';
import { CallbacksModule } from './callbacks/callbacks.module';

/** Root module of webhook-ingest: verified provider callbacks, published before they are acknowledged. */
@Module({
  imports: [
    PlatformModule.forService({
      service: 'webhook-ingest',
      kafka: true,
      mysql: true,
      redis: false,
      configs: [CallbacksConfig, SecretsConfig],
      // Thousands of callbacks a second: request lines come from a hook, no logging middleware runs.
      requestLogs: 'hook',
    }),
    CallbacksModule,
  ],
})
export class WebhookIngestModule {}
