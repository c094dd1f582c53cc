import { Injectable } from '@nestjs/common';
import { type Channel, FailureReason, RunPauseReason, SendOutcomeCode } from '@ums/contracts';
import type { SendResult } from '@ums/domain';
import type { SqlRunner } from '@ums/platform';
import type { OutgoingMessage } from '../providers/provider-adapter';
import { CreditLedgerRepository } from './credit-ledger.repository';
import { type CreditCandidate, type MessageUnits, unitsOf } from './credit-plan';
import { RunPausesRepository } from './run-pauses.repository';

/** A row a claim is about to take, with its account's price as the claim read it (unlocked). */
export interface ClaimCreditRow {
  readonly id: string;
  readonly tenantId: string;
  readonly channel: string;
  readonly runId: string | null;
  /** Credits the row still holds from an earlier attempt. */
  readonly charge: number;
  /** The account's price when the claim read the row; null: not metered (nothing is locked). */
  readonly price: number | null;
}

/** What credits decide for a claim: the rows' units and charges, those held back and those refused. */
export interface ClaimCredits {
  /** Segments and encoding to write on each rendered row. */
  readonly units: Map<string, MessageUnits>;
  /** Credits charged now per row (added to `messages.charge`). */
  readonly charges: Map<string, number>;
  /** Bulk rows left PENDING (their runs paused). */
  readonly held: Map<string, RunPauseReason>;
  /** Single sends claimed but not sent: failed permanently, uncharged. */
  readonly refused: Map<string, SendResult>;
  /** Credits newly held per run. */
  readonly chargedPerRun: Map<string, number>;
}

/**
 * The credit side of a claim, in its transaction: units of each rendered message (segments for SMS),
 * a reservation for the rows of priced accounts (CreditLedgerRepository.reserve), runs paused for the
 * bulk rows that did not fit, and a permanent CREDITS_EXHAUSTED / QUOTA_EXHAUSTED result for single
 * sends that did not. Rows of unpriced accounts cost nothing and lock nothing.
 */
@Injectable()
export class ClaimCreditsRepository {
  constructor(
    private readonly ledger: CreditLedgerRepository,
    private readonly pauses: RunPausesRepository,
  ) {}

  /**
   * `outgoing` are the rendered messages that will go to the provider (undefined: the claim was not
   * rendered, every row counts one unit); rows with a result decided already are not charged.
   */
  async claim(
    manager: SqlRunner,
    token: string,
    rows: readonly ClaimCreditRow[],
    outgoing: readonly OutgoingMessage[] | undefined,
  ): Promise<ClaimCredits> {
    const credits: ClaimCredits = {
      units: new Map(),
      charges: new Map(),
      held: new Map(),
      refused: new Map(),
      chargedPerRun: new Map(),
    };
    const sendable = new Map(outgoing?.map((o) => [o.messageId, o]));
    for (const o of sendable.values())
      credits.units.set(o.messageId, unitsOf(o.channel as Channel, o.content));
    const candidates: CreditCandidate[] = rows
      .filter((row) => row.price !== null && (outgoing === undefined || sendable.has(row.id)))
      .map((row) => ({ ...row, units: credits.units.get(row.id)?.units ?? 1 }));
    if (candidates.length === 0) return credits;
    const plan = await this.ledger.reserve(manager, token, candidates);
    const bulkHeld = new Map<RunPauseReason, Set<string>>();
    const runOf = new Map(rows.map((row) => [row.id, row.runId]));
    for (const [id, reason] of plan.held) {
      const runId = runOf.get(id) ?? null;
      if (runId === null) {
        credits.refused.set(id, refusal(reason));
        continue;
      }
      credits.held.set(id, reason);
      bulkHeld.set(reason, (bulkHeld.get(reason) ?? new Set()).add(runId));
    }
    // A run held for both reasons at once is paused for the quota (checked first).
    const quotaRuns = new Set(bulkHeld.get(RunPauseReason.QuotaExhausted));
    await this.pauses.pause(manager, [...quotaRuns], RunPauseReason.QuotaExhausted);
    const creditRuns = [...(bulkHeld.get(RunPauseReason.CreditsExhausted) ?? [])].filter(
      (runId) => !quotaRuns.has(runId),
    );
    await this.pauses.pause(manager, creditRuns, RunPauseReason.CreditsExhausted);
    for (const [id, charge] of plan.charges) credits.charges.set(id, charge);
    for (const [runId, charge] of plan.chargedPerRun) credits.chargedPerRun.set(runId, charge);
    return credits;
  }
}

function refusal(reason: RunPauseReason): SendResult {
  const quota = reason === RunPauseReason.QuotaExhausted;
  return {
    kind: 'permanent',
    reason: FailureReason.CreditsExhausted,
    code: quota ? SendOutcomeCode.QuotaExhausted : SendOutcomeCode.CreditsExhausted,
    detail: quota
      ? "not sent: the tenant's message quota is used up"
      : "not sent: the tenant's credit balance does not cover it",
  };
}
