import { Module } from '@nestjs/common';
import { IdempotencyModule, PlatformModule, SecretsConfig } from '@ums/platform';
import { DeliveriesConfig } from './deliveries/deliveries.config';
import { DeliveriesModule } from './deliveries/deliveries.module';
import { SubscribersModule } from './subscribers/subscribers.module';

/** Root module of webhook-dispatcher: the subscriber API and signed deliveries with retries and tombstones. */
@Module({
  imports: [
    PlatformModule.forService({
      service: 'webhook-dispatcher',
      api: true,
      kafka: true,
      mysql: true,
      redis: true,
      configs: [DeliveriesConfig, SecretsConfig],
      // A consumer: no request context tracking every promise of the process (see RequestLogMode).
      requestLogs: 'hook',
      openApi: {
        title: 'UMS webhook API (webhook-dispatcher)',
        description: 'Webhook subscribers of a tenant, their signed deliveries, replays and resurrection.',
        version: '1.0.0',
      },
    }),
    IdempotencyModule,
    SubscribersModule,
    DeliveriesModule,
  ],
})
export class WebhookDispatcherModule {}
