import { Injectable } from '@nestjs/common';
import type { CreditLedgerPage, CreditQuotasUpdateView, CreditQuotasView, CreditsView } from '@ums/contracts';
import { quotaPeriodsAt } from '@ums/domain';
import { CreditAccountsRepository } from './credit-accounts.repository';
import { CreditLedgerRepository } from './credit-ledger.repository';
import type { ListCreditLedgerDto, SetCreditQuotasDto } from './credits.dto';
import { toAccountViews, toLedgerEntryView, toQuotasView } from './credits.view';

/** A tenant's credits as the API reads them, and its quotas as the operator sets them. */
@Injectable()
export class CreditsService {
  constructor(
    private readonly accounts: CreditAccountsRepository,
    private readonly ledger: CreditLedgerRepository,
  ) {}

  async view(tenantId: string): Promise<CreditsView> {
    const [records, quotas] = await Promise.all([this.accounts.accountsOf(tenantId), this.quotas(tenantId)]);
    return { tenantId, accounts: toAccountViews(records), quotas };
  }

  async ledgerPage(tenantId: string, query: ListCreditLedgerDto): Promise<CreditLedgerPage> {
    const records = await this.ledger.page(tenantId, {
      limit: query.limit,
      ...(query.channel === undefined ? {} : { channel: query.channel }),
      ...(query.kind === undefined ? {} : { kind: query.kind }),
      ...(query.before === undefined ? {} : { before: query.before }),
    });
    return {
      items: records.map(toLedgerEntryView),
      next: records.length === query.limit ? (records[records.length - 1]?.id ?? null) : null,
    };
  }

  /**
   * Sets the caps given (left out: unchanged; null: none). Runs paused for quota resume on the
   * sweeper's next tick when the caps now allow.
   */
  async setQuotas(tenantId: string, dto: SetCreditQuotasDto): Promise<CreditQuotasUpdateView> {
    await this.accounts.setQuota(tenantId, {
      ...(dto.dailyLimit === undefined ? {} : { dailyLimit: dto.dailyLimit }),
      ...(dto.monthlyLimit === undefined ? {} : { monthlyLimit: dto.monthlyLimit }),
    });
    return { tenantId, ...(await this.quotas(tenantId)) };
  }

  private async quotas(tenantId: string): Promise<CreditQuotasView> {
    const periods = quotaPeriodsAt(await this.accounts.dbNow());
    const [quota, used] = await Promise.all([
      this.accounts.quotaOf(tenantId),
      this.accounts.usage(tenantId, [periods.day, periods.month]),
    ]);
    return toQuotasView(quota, periods, used);
  }
}
