import { Module } from '@nestjs/common';
import { CampaignsModule } from '../campaigns/campaigns.module';
import { RunsModule } from '../runs/runs.module';
import { LiveController } from './live.controller';
import { LiveMetrics } from './live.metrics';
import { LiveRepository } from './live.repository';
import { LiveService } from './live.service';

/** Live streams (server-sent events) of campaigns and runs for the operator console. */
@Module({
  imports: [CampaignsModule, RunsModule],
  controllers: [LiveController],
  providers: [LiveRepository, LiveService, LiveMetrics],
})
export class LiveModule {}
