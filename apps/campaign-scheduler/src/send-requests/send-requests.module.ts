import { Module } from '@nestjs/common';
import { AudienceModule } from '../audience/audience.module';
import { CampaignsModule } from '../campaigns/campaigns.module';
import { SendRequestsConsumer } from './send-requests.consumer';
import { SendRequestsRepository } from './send-requests.repository';
import { SendRequestsService } from './send-requests.service';
import { SendsController } from './sends.controller';

/**
 * Send requests, from producers on Kafka (the consumer) and over HTTP (`POST /v1/messages`, `POST /v1/sends`):
 * single sends to the priority lane, bulk requests to campaigns.
 */
@Module({
  imports: [CampaignsModule, AudienceModule],
  controllers: [SendRequestsConsumer, SendsController],
  providers: [SendRequestsRepository, SendRequestsService],
})
export class SendRequestsModule {}
