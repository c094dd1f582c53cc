import { Module } from '@nestjs/common';
import { SendingModule } from '../sending/sending.module';
import { ArchivedMessagesRepository } from './archived-messages.repository';
import { InboundMessagesRepository } from './inbound-messages.repository';
import { ProviderEventsConsumer } from './provider-events.consumer';
import { StatusApplicationService } from './status-application.service';
import { StatusMetrics } from './status.metrics';
import { StatusUpdatesRepository } from './status-updates.repository';

/** Status application: provider events -> message rows (forward only) -> status and inbound topics. */
@Module({
  imports: [SendingModule],
  controllers: [ProviderEventsConsumer],
  providers: [
    StatusUpdatesRepository,
    InboundMessagesRepository,
    ArchivedMessagesRepository,
    StatusMetrics,
    StatusApplicationService,
  ],
})
export class StatusModule {}
