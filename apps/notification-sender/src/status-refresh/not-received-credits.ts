import { Injectable } from '@nestjs/common';
import { FailureReason } from '@ums/contracts';
import { selectRows, type SqlRunner } from '@ums/platform';
import { CreditLedgerRepository, type RefundRow } from '../credits/credit-ledger.repository';
import type { StatusChange } from '../sending/status-change';

interface ChargedRow {
  readonly id: string;
  readonly tenant_id: string;
  readonly channel: string;
  readonly run_id: string | null;
  readonly charge: number | string;
  readonly segments: number;
}

/**
 * The credits held by messages a status refresh found the provider never received go back to their
 * tenant, in the transaction that marks them FAILED not-received (their rows are locked by it).
 */
@Injectable()
export class NotReceivedCredits {
  constructor(private readonly ledger: CreditLedgerRepository) {}

  async refund(manager: SqlRunner, changes: readonly StatusChange[]): Promise<void> {
    const ids = changes.filter((c) => c.reason === FailureReason.NotReceived).map((c) => c.messageId);
    if (ids.length === 0) return;
    const rows = await selectRows<ChargedRow>(
      manager,
      'SELECT id, tenant_id, channel, run_id, charge, segments FROM messages FORCE INDEX (PRIMARY) WHERE id IN (?) AND charge > 0',
      [ids],
    );
    await this.ledger.refundUnsent(manager, rows.map(refundRowOf));
  }
}

function refundRowOf(row: ChargedRow): RefundRow {
  return {
    id: String(row.id),
    tenantId: row.tenant_id,
    channel: row.channel,
    runId: row.run_id === null ? null : String(row.run_id),
    charge: Number(row.charge),
    units: row.channel === 'sms' ? row.segments : 1,
  };
}
