import { Injectable } from '@nestjs/common';
import { CreditErrorCode, type CreditPriceView, type CreditTopUpView, RunPauseReason } from '@ums/contracts';
import { ConflictError, retryInfrastructure } from '@ums/platform';
import { PinoLogger } from 'nestjs-pino';
import { DataSource, type EntityManager } from 'typeorm';
import { CreditAccountsRepository } from './credit-accounts.repository';
import { type CreditLedgerRecord, CreditLedgerRepository } from './credit-ledger.repository';
import type { TopUpCreditsDto } from './credits.dto';
import { CreditsMetrics } from './credits.metrics';
import { toAccountView, toLedgerEntryView } from './credits.view';
import { PausedRunsResumer } from './paused-runs-resumer.service';

/**
 * The operator's changes of a tenant's account: top-ups (balance and ledger row in one transaction,
 * idempotent by reference) and prices (no ledger row: the balance does not move). Either may let runs
 * paused for want of credits on the channel go on: they are resumed after the commit.
 */
@Injectable()
export class CreditTopUpsService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly accounts: CreditAccountsRepository,
    private readonly ledger: CreditLedgerRepository,
    private readonly resumer: PausedRunsResumer,
    private readonly metrics: CreditsMetrics,
    private readonly logger: PinoLogger,
  ) {
    this.logger.setContext(CreditTopUpsService.name);
  }

  /**
   * Credits `amount` once per (tenant, channel, reference): a repeated reference answers the first
   * top-up's entry (a different amount is refused, 409), and nothing is credited again. Either way runs
   * paused with CREDITS_EXHAUSTED on the channel are then resumed.
   */
  async topUp(tenantId: string, actor: string, dto: TopUpCreditsDto): Promise<CreditTopUpView> {
    const { channel, amount, reference } = dto;
    const outcome = await this.transaction(async (manager) => {
      // The account's lock orders every top-up of the channel: a repeated reference waits, then finds the first.
      const account = await this.accounts.lockOrCreate(manager, tenantId, channel);
      const first = await this.ledger.findByReference(manager, {
        tenantId,
        channel,
        kind: 'TOP_UP',
        reference,
      });
      if (first !== undefined) return { entry: first, balance: account.balance, replayed: true };
      const balance = account.balance + amount;
      await this.accounts.addToBalance(manager, tenantId, channel, amount);
      const entry = await this.ledger.append(manager, {
        tenantId,
        channel,
        kind: 'TOP_UP',
        amount,
        balanceAfter: balance,
        reference,
        actor,
      });
      return { entry, balance, replayed: false };
    });
    if (outcome.replayed && outcome.entry.amount !== amount) throw referenceReused(outcome.entry, amount);
    if (!outcome.replayed) {
      this.metrics.topUps.inc({ channel });
      this.logger.info({ tenantId, channel, amount, reference, actor }, 'Credits topped up');
    }
    const resumedRuns = await this.resumer.resume(tenantId, RunPauseReason.CreditsExhausted, channel);
    return {
      tenantId,
      entry: toLedgerEntryView(outcome.entry),
      balance: outcome.balance,
      replayed: outcome.replayed,
      resumedRuns,
    };
  }

  private transaction<T>(work: (manager: EntityManager) => Promise<T>): Promise<T> {
    return retryInfrastructure(() => this.dataSource.transaction(work), RETRY);
  }

  /**
   * Sets the channel's price (null: not metered). When a message can now be afforded (no price, or a
   * balance of at least one price), runs paused with CREDITS_EXHAUSTED on the channel are resumed.
   */
  async setPrice(tenantId: string, channel: string, price: number | null): Promise<CreditPriceView> {
    const account = await this.transaction(async (manager) => {
      const locked = await this.accounts.lockOrCreate(manager, tenantId, channel);
      await this.accounts.setPrice(manager, tenantId, channel, price);
      return { ...locked, price };
    });
    this.logger.info({ tenantId, channel, price }, 'Credit price set');
    const affordable = price === null || account.balance >= price;
    const resumedRuns = affordable
      ? await this.resumer.resume(tenantId, RunPauseReason.CreditsExhausted, channel)
      : 0;
    return { tenantId, ...toAccountView(account), resumedRuns };
  }
}

/**
 * The first writes of a new account by concurrent calls may deadlock (InnoDB's duplicate-key locks):
 * the transaction is tried again, briefly. Top-ups are idempotent by reference, prices by value.
 */
const RETRY = { forMs: 5_000, firstDelayMs: 20, maxDelayMs: 500 };

function referenceReused(first: CreditLedgerRecord, amount: number): ConflictError {
  return new ConflictError(
    CreditErrorCode.TopUpReferenceReused,
    `Reference ${first.reference ?? ''} topped up ${first.channel} by ${first.amount} before, not ${amount}: ` +
      'nothing was credited',
    { reference: first.reference, amount: first.amount },
  );
}
