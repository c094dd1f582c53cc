import { Module } from '@nestjs/common';
import { SecretsModule } from '@ums/platform';
import { FailureWindow } from './failure-window.service';
import { SubscriberAddresses } from './subscriber-address.service';
import { SubscriberDirectory } from './subscriber-directory.service';
import { SubscribersController } from './subscribers.controller';
import { SubscribersRepository } from './subscribers.repository';
import { SubscribersMetrics } from './subscribers.metrics';
import { SubscribersService } from './subscribers.service';

/** The subscribers table, its API, the in-memory directory the hot path reads, and the failure window. */
@Module({
  imports: [SecretsModule],
  controllers: [SubscribersController],
  providers: [
    SubscribersService,
    SubscribersRepository,
    SubscriberAddresses,
    SubscriberDirectory,
    SubscribersMetrics,
    FailureWindow,
  ],
  exports: [SubscribersRepository, SubscriberDirectory, FailureWindow],
})
export class SubscribersModule {}
