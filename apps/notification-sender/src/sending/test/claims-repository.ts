import { MetricsRegistry } from '@ums/platform';
import type { DataSource } from 'typeorm';
import { ClaimCreditsRepository } from '../../credits/claim-credits.repository';
import { CreditLedgerRepository } from '../../credits/credit-ledger.repository';
import { CreditsMetrics } from '../../credits/credits.metrics';
import { RunPausesRepository } from '../../credits/run-pauses.repository';
import { MessageClaimsRepository } from '../message-claims.repository';

/** The credit ledger as CreditsModule provides it, its metrics on the given registry. */
export function creditLedgerRepository(registry: MetricsRegistry): CreditLedgerRepository {
  return new CreditLedgerRepository(new CreditsMetrics(registry));
}

/** The credit repositories a claims repository takes, wired as CreditsModule wires them. */
export function claimCreditRepositories(
  registry: MetricsRegistry = new MetricsRegistry('notification-sender-test'),
): { readonly credits: ClaimCreditsRepository; readonly ledger: CreditLedgerRepository } {
  const ledger = creditLedgerRepository(registry);
  return { credits: new ClaimCreditsRepository(ledger, new RunPausesRepository()), ledger };
}

/** The claims repository with its credit repositories, wired as the sender's modules wire them. */
export function messageClaimsRepository(ds: DataSource, registry?: MetricsRegistry): MessageClaimsRepository {
  const { credits, ledger } = claimCreditRepositories(registry);
  return new MessageClaimsRepository(ds, credits, ledger);
}
