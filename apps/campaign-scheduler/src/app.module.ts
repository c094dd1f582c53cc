import { Module } from '@nestjs/common';
import { IdempotencyModule, PlatformModule, ProviderEndpointsConfig, SecretsConfig } from '@ums/platform';
import { AccessModule } from './access/access.module';
import { AudienceConfig } from './audience/audience.config';
import { AudienceModule } from './audience/audience.module';
import { CampaignsModule } from './campaigns/campaigns.module';
import { ContactListsConfig } from './contact-lists/contact-lists.config';
import { ContactListsModule } from './contact-lists/contact-lists.module';
import { CredentialsModule } from './credentials/credentials.module';
import { CreditsConfig } from './credits-ledger/credits.config';
import { CreditsLedgerModule } from './credits-ledger/credits-ledger.module';
import { DeadLettersConfig } from './dead-letters/dead-letters.config';
import { DeadLettersModule } from './dead-letters/dead-letters.module';
import { LiveConfig } from './live/live.config';
import { LiveModule } from './live/live.module';
import { MessagesModule } from './messages/messages.module';
import { OptOutsModule } from './opt-outs/opt-outs.module';
import { MessageRetentionConfig } from './retention/message-retention.config';
import { MessageRetentionModule } from './retention/message-retention.module';
import { RunTimelineModule } from './run-timeline/run-timeline.module';
import { RunsModule } from './runs/runs.module';
import { StatusRefreshReadConfig } from './status-refresh/status-refresh.config';
import { StatusRefreshModule } from './status-refresh/status-refresh.module';
import { SchedulingConfig } from './scheduling/scheduling.config';
import { SchedulingModule } from './scheduling/scheduling.module';
import { SendRequestsModule } from './send-requests/send-requests.module';
import { SweeperConfig } from './sweeper/sweeper.config';
import { SweeperModule } from './sweeper/sweeper.module';
import { TestSendsConfig } from './test-sends/test-sends.config';
import { TestSendsModule } from './test-sends/test-sends.module';

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
        ContactListsConfig,
        DeadLettersConfig,
        LiveConfig,
        MessageRetentionConfig,
        CreditsConfig,
        TestSendsConfig,
        StatusRefreshReadConfig,
      ],
      openApi: {
        title: 'UMS campaign API (campaign-scheduler)',
        description:
          'Campaigns, their audiences, runs and messages; provider credentials, API keys, the audit trail and dead letters.',
        version: '1.0.0',
      },
    }),
    IdempotencyModule,
    AccessModule,
    CredentialsModule,
    CreditsLedgerModule,
    CampaignsModule,
    AudienceModule,
    ContactListsModule,
    RunsModule,
    MessagesModule,
    OptOutsModule,
    SchedulingModule,
    SweeperModule,
    SendRequestsModule,
    DeadLettersModule,
    LiveModule,
    RunTimelineModule,
    MessageRetentionModule,
    TestSendsModule,
    StatusRefreshModule,
  ],
})
export class CampaignSchedulerModule {}
