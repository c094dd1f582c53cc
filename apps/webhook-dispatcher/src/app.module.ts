import { Module } from '@nestjs/common';
import { PlatformModule } from '@ums/platform';

/** Root module of webhook-dispatcher; features are added as modules under src/<feature>/. */
@Module({
  imports: [
    PlatformModule.forService({ service: 'webhook-dispatcher', kafka: true, mysql: true, redis: true }),
  ],
})
export class WebhookDispatcherModule {}
