import { Module } from '@nestjs/common';
import { PlatformModule } from '@ums/platform';

/** Root module of notification-sender; features are added as modules under src/<feature>/. */
@Module({
  imports: [
    PlatformModule.forService({ service: 'notification-sender', kafka: true, mysql: true, redis: true }),
  ],
})
export class NotificationSenderModule {}
