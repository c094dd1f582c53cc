import { Module } from '@nestjs/common';
import { CampaignsModule } from '../campaigns/campaigns.module';
import { TestSendsController } from './test-sends.controller';
import { TestSendsRepository } from './test-sends.repository';
import { TestSendsService } from './test-sends.service';

/** Test sends of a campaign (`/v1/campaigns/{id}/test-sends`): a few single sends before it starts. */
@Module({
  imports: [CampaignsModule],
  controllers: [TestSendsController],
  providers: [TestSendsRepository, TestSendsService],
})
export class TestSendsModule {}
