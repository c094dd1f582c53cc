import { Module } from '@nestjs/common';
import { ClaimCreditsRepository } from './claim-credits.repository';
import { CreditLedgerRepository } from './credit-ledger.repository';
import { CreditsMetrics } from './credits.metrics';
import { RunPausesRepository } from './run-pauses.repository';

/**
 * Tenant credits on the sending side: reservations with each claim, refunds of messages not sent
 * (CreditLedgerRepository.refundUnsent, also for the status refresh), runs paused when credits or
 * quotas run out.
 */
@Module({
  providers: [CreditsMetrics, CreditLedgerRepository, RunPausesRepository, ClaimCreditsRepository],
  exports: [CreditLedgerRepository, ClaimCreditsRepository],
})
export class CreditsModule {}
