import { Module } from '@nestjs/common';
import { RunsModule } from '../runs/runs.module';
import { SweeperMetrics } from './sweeper.metrics';
import { SweeperRepository } from './sweeper.repository';
import { SweeperService } from './sweeper.service';

/** Stale-checkpoint retries and run completion. */
@Module({
  imports: [RunsModule],
  providers: [SweeperRepository, SweeperService, SweeperMetrics],
})
export class SweeperModule {}
