import { type BatchItemV1, describeFailure, FailureReason } from '@ums/contracts';
import { type DispositionContext, disposeSendResult, type SendResult } from '@ums/domain';
import type { ClaimedMessage } from './message-claims.repository';
import type { RecordedOutcome } from './recorded-outcome';
import type { MessageOutcomeLabel } from './sending.metrics';

/** The items going to one send retry tier: one record, due when its last item is (none is retried early). */
export interface TierRetry {
  readonly items: BatchItemV1[];
  dueAt: number;
  readonly lastError: string;
}

/** A message whose retries are used up, for the dead-letter topic. */
export interface ExhaustedItem {
  readonly item: BatchItemV1;
  readonly attempts: number;
  readonly error: string;
}

/** What a claim's results come to: the rows' outcomes, the retries by tier and the dead letters. */
export interface SettlementPlan {
  readonly outcomes: RecordedOutcome[];
  readonly retries: Map<number, TierRetry>;
  readonly exhausted: ExhaustedItem[];
}

/**
 * Decides each claimed message's result (disposeSendResult): SENT, FAILED, UNKNOWN, exhausted
 * (FAILED and a dead letter) or released onto a retry tier. Every claimed message must have a
 * result; a batch item missing for a retried message is rebuilt from the claimed row.
 */
export function planSettlement(
  claimed: readonly ClaimedMessage[],
  results: ReadonlyMap<string, SendResult>,
  items: ReadonlyMap<string, BatchItemV1>,
  context: Omit<DispositionContext, 'attempts'>,
): SettlementPlan {
  const plan: SettlementPlan = { outcomes: [], retries: new Map(), exhausted: [] };
  const { outcomes, retries, exhausted } = plan;
  for (const message of claimed) {
    const result = results.get(message.id);
    if (result === undefined) throw new Error(`no send result for message ${message.id}`);
    const d = disposeSendResult(result, {
      attempts: message.attempts,
      tierDelaysMs: context.tierDelaysMs,
      nowMs: context.nowMs,
      jitterRatio: context.jitterRatio,
      random: context.random,
    });
    const id = message.id;
    if (d.action === 'sent') {
      outcomes.push({ id, kind: 'sent', providerMessageId: d.providerMessageId });
      continue;
    }
    const detail = { reason: d.reason, code: d.code, text: d.detail };
    const error = d.detail === undefined ? d.code : describeFailure(d.code, d.detail);
    const item = items.get(id) ?? { messageId: id, recipient: message.recipient };
    if (d.action === 'fail') outcomes.push({ id, kind: 'failed', ...detail });
    else if (d.action === 'unknown') outcomes.push({ id, kind: 'unknown', ...detail });
    else if (d.action === 'exhausted') {
      outcomes.push({
        id,
        kind: 'failed',
        exhausted: true,
        ...detail,
        reason: FailureReason.RetriesExhausted,
      });
      exhausted.push({ item, attempts: message.attempts, error });
    } else {
      outcomes.push({ id, kind: 'released', notSent: d.notSent, ...detail });
      const tier = retries.get(d.tier) ?? { items: [], dueAt: 0, lastError: error };
      tier.items.push(item);
      tier.dueAt = Math.max(tier.dueAt, d.dueAt);
      retries.set(d.tier, tier);
    }
  }
  return plan;
}

/** The metrics label of a recorded outcome. */
export function labelOf(outcome: RecordedOutcome): MessageOutcomeLabel {
  if (outcome.kind === 'released') return 'retried';
  if (outcome.kind === 'failed' && outcome.exhausted === true) return 'exhausted';
  return outcome.kind;
}
