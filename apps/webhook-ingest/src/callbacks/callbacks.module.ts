import { Module } from '@nestjs/common';
import { SecretsModule } from '@ums/platform';
import { CallbackCredentialsRepository } from './callback-credentials.repository';
import { CallbackCredentials } from './callback-credentials.service';
import { CallbacksController } from './callbacks.controller';
import { CallbacksMetrics } from './callbacks.metrics';
import { CallbacksService } from './callbacks.service';
import { ProviderEventsPublisher } from './provider-events.publisher';
import { SnsClient } from './sns-client.service';

/** Provider callback intake: raw bodies, verification, normalization, publish before 2xx. */
@Module({
  imports: [SecretsModule],
  controllers: [CallbacksController],
  providers: [
    CallbackCredentialsRepository,
    CallbackCredentials,
    CallbacksMetrics,
    CallbacksService,
    ProviderEventsPublisher,
    SnsClient,
  ],
})
export class CallbacksModule {}
