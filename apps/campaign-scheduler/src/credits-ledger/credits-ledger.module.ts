import { Module } from '@nestjs/common';
import { RunsModule } from '../runs/runs.module';
import { CreditAccountsRepository } from './credit-accounts.repository';
import { CreditGauges } from './credit-gauges.service';
import { CreditLedgerRepository } from './credit-ledger.repository';
import { CreditTopUpsService } from './credit-top-ups.service';
import { CreditsController } from './credits.controller';
import { CreditsMetrics } from './credits.metrics';
import { CreditsService } from './credits.service';
import { PausedRunsRepository } from './paused-runs.repository';
import { PausedRunsResumer } from './paused-runs-resumer.service';

/**
 * Tenant credits (credit_accounts, credit_ledger) and quotas (credit_quotas, credit_quota_usage) as the
 * API reads and the operator sets them; the senders reserve and refund. Resuming runs a sender paused
 * (PausedRunsResumer) is shared with the sweeper. Needs CreditsConfig in the app's configs.
 */
@Module({
  imports: [RunsModule],
  controllers: [CreditsController],
  providers: [
    CreditAccountsRepository,
    CreditLedgerRepository,
    CreditsService,
    CreditTopUpsService,
    CreditsMetrics,
    CreditGauges,
    PausedRunsRepository,
    PausedRunsResumer,
  ],
  exports: [CreditAccountsRepository, PausedRunsRepository, PausedRunsResumer],
})
export class CreditsLedgerModule {}
