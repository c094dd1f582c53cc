import { Module } from '@nestjs/common';
import { CredentialRateSecondsRepository } from '../credentials/credential-rate-seconds.repository';
import { RunsModule } from '../runs/runs.module';
import { CredentialRateRetentionService } from './credential-rate-retention.service';
import { SweeperMetrics } from './sweeper.metrics';
import { SweeperRepository } from './sweeper.repository';
import { SweeperService } from './sweeper.service';

/** Stale-checkpoint retries, run completion and the retention of the per-second rate figures. */
@Module({
  imports: [RunsModule],
  providers: [
    SweeperRepository,
    SweeperService,
    SweeperMetrics,
    CredentialRateSecondsRepository,
    CredentialRateRetentionService,
  ],
})
export class SweeperModule {}
