import { Module } from '@nestjs/common';
import { CredentialRateSecondsRepository } from '../credentials/credential-rate-seconds.repository';
import { CreditsLedgerModule } from '../credits-ledger/credits-ledger.module';
import { RunsModule } from '../runs/runs.module';
import { CredentialRateRetentionService } from './credential-rate-retention.service';
import { CreditQuotaSweeper } from './credit-quota-sweeper.service';
import { SweeperMetrics } from './sweeper.metrics';
import { SweeperRepository } from './sweeper.repository';
import { SweeperService } from './sweeper.service';

/**
 * Stale-checkpoint retries, run completion, the retention of the per-second rate figures, and runs
 * paused for quota resumed when the tenant is under its caps again (with the quota counts' retention).
 */
@Module({
  imports: [RunsModule, CreditsLedgerModule],
  providers: [
    SweeperRepository,
    SweeperService,
    SweeperMetrics,
    CredentialRateSecondsRepository,
    CredentialRateRetentionService,
    CreditQuotaSweeper,
  ],
})
export class SweeperModule {}
