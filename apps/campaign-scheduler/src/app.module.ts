import { Module } from '@nestjs/common';
import { PlatformModule } from '@ums/platform';

/** Root module of campaign-scheduler; features are added as modules under src/<feature>/. */
@Module({
  imports: [
    PlatformModule.forService({ service: 'campaign-scheduler', kafka: true, mysql: true, redis: true }),
  ],
})
export class CampaignSchedulerModule {}
