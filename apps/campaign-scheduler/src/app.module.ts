import { Module } from '@nestjs/common';
import { PlatformModule, ProviderEndpointsConfig, SecretsConfig } from '@ums/platform';
import { AccessModule } from './access/access.module';
import { AudienceConfig } from './audience/audience.config';
import { AudienceModule } from './audience/audience.module';
import { CampaignsModule } from './campaigns/campaigns.module';
import { CredentialsModule } from './credentials/credentials.module';
import { DeadLettersConfig } from './dead-letters/dead-letters.config';
import { DeadLettersModule } from './dead-letters/dead-letters.module';
import { MessagesModule } from './messages/messages.module';
import { RunsModule } from './runs/runs.module';
import { SchedulingConfig } from './scheduling/scheduling.config';
import { SchedulingModule } from './scheduling/scheduling.module';
import { SendRequestsModule } from './send-requests/send-requests.module';
import { SweeperConfig } from './sweeper/sweeper.config';
import { SweeperModule } from './sweeper/sweeper.module';

/**
 * Root module of campaign-scheduler: the campaign API, the due-run scheduler, the stale-checkpoint sweeper
 * and the dead letters kept for operators.
 */
@Module({
  imports: [
    PlatformModule.forService({
      service: 'campaign-scheduler',
      api: true,
      kafka: true,
      mysql: true,
      redis: true,
      configs: [
        SchedulingConfig,
        SweeperConfig,
        SecretsConfig,
        ProviderEndpointsConfig,
        AudienceConfig,
        DeadLettersConfig,
      ],
    }),
    AccessModule,
    CredentialsModule,
    CampaignsModule,
    AudienceModule,
    RunsModule,
    MessagesModule,
    SchedulingModule,
    SweeperModule,
    SendRequestsModule,
    DeadLettersModule,
  ],
})
export class CampaignSchedulerModule {}
