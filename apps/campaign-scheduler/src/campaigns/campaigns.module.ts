import { Module } from '@nestjs/common';
import { RunsModule } from '../runs/runs.module';
import { SchedulingModule } from '../scheduling/scheduling.module';
import { CampaignsController } from './campaigns.controller';
import { CampaignsRepository } from './campaigns.repository';
import { CampaignsService } from './campaigns.service';

/** The campaign API: create, read, and start/pause/resume/stop/archive. */
@Module({
  imports: [RunsModule, SchedulingModule],
  controllers: [CampaignsController],
  providers: [CampaignsRepository, CampaignsService],
  exports: [CampaignsService, CampaignsRepository],
})
export class CampaignsModule {}
