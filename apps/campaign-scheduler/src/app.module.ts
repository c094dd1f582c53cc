import { Module } from '@nestjs/common';
import { PlatformModule } from '@ums/platform';
import { AudienceModule } from './audience/audience.module';
import { CampaignsModule } from './campaigns/campaigns.module';
import { CredentialsModule } from './credentials/credentials.module';
import { MessagesModule } from './messages/messages.module';
import { RunsModule } from './runs/runs.module';
import { SchedulingModule } from './scheduling/scheduling.module';
import { SendRequestsModule } from './send-requests/send-requests.module';

/** Root module of campaign-scheduler: the campaign API, the due-run scheduler and the stale-checkpoint sweeper. */
@Module({
  imports: [
    PlatformModule.forService({
      service: 'campaign-scheduler',
      kafka: true,
      mysql: true,
      redis: true,
      configs: [],
    }),
    CredentialsModule,
    CampaignsModule,
    AudienceModule,
    RunsModule,
    MessagesModule,
    SchedulingModule,
    SendRequestsModule,
  ],
})
export class CampaignSchedulerModule {}
