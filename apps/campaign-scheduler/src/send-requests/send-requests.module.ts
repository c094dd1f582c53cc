import { Module } from '@nestjs/common';
import { AudienceModule } from '../audience/audience.module';
import { CampaignsModule } from '../campaigns/campaigns.module';
import { SendRequestsConsumer } from './send-requests.consumer';
import { SendRequestsRepository } from './send-requests.repository';
import { SendRequestsService } from './send-requests.service';

/** Consumer of producers' send requests: single sends to the priority lane, bulk requests to campaigns. */
@Module({
  imports: [CampaignsModule, AudienceModule],
  controllers: [SendRequestsConsumer],
  providers: [SendRequestsRepository, SendRequestsService],
})
export class SendRequestsModule {}
