import { type FailureReason, MessageStatus } from '@ums/contracts';
import { decideStatus, MessageEvent, transitionMessage } from '@ums/domain';
import { type ChangedMessageRow, type StatusChange, statusChangeOf } from './status-change';

interface OutcomeDetail {
  readonly reason: FailureReason;
  readonly code?: string;
  readonly text?: string;
}

/** What a send attempt ended with, for one claimed message. */
export type RecordedOutcome =
  | { readonly id: string; readonly kind: 'sent'; readonly providerMessageId: string | null }
  /** FAILED: a permanent rejection, or (exhausted) a retryable one with no tier left. */
  | ({ readonly id: string; readonly kind: 'failed'; readonly exhausted?: boolean } & OutcomeDetail)
  /** UNKNOWN: the provider may have it (no answer came back); never resent automatically. */
  | ({ readonly id: string; readonly kind: 'unknown' } & OutcomeDetail)
  /** Back to PENDING for a retry tier; notSent gives back the attempt its claim counted. */
  | ({ readonly id: string; readonly kind: 'released'; readonly notSent?: boolean } & OutcomeDetail);

export type SentOutcome = Extract<RecordedOutcome, { kind: 'sent' }>;
export type FailureOutcome = Exclude<RecordedOutcome, { kind: 'sent' }>;

/** Error codes and texts are cut to their columns (VARCHAR(64), VARCHAR(1024)). */
export const ERROR_CODE_CHARS = 64;
export const ERROR_TEXT_CHARS = 1024;

/** A message row a record locked (SENDING or UNKNOWN under the claim's token), as selected. */
export interface RecordableRow extends ChangedMessageRow {
  readonly state: string;
}

/** What a record writes: the SENT rows, the others by the state they go to, and the changes to announce. */
export interface RecordPlan {
  readonly sent: SentOutcome[];
  readonly failures: Map<MessageStatus, FailureOutcome[]>;
  readonly changes: StatusChange[];
}

const EVENT_OF: Readonly<Record<RecordedOutcome['kind'], MessageEvent>> = {
  sent: MessageEvent.Accept,
  failed: MessageEvent.RejectPermanent,
  unknown: MessageEvent.OutcomeAmbiguous,
  released: MessageEvent.ReleaseForRetry,
};

/**
 * The changes the outcomes make to the locked rows, in the outcomes' order: an outcome whose row
 * was not locked (not ours, or settled already) or whose transition the state machine refuses
 * changes nothing, and an id given twice is recorded once.
 */
export function planRecord(rows: readonly RecordableRow[], outcomes: readonly RecordedOutcome[]): RecordPlan {
  const byId = new Map(rows.map((row) => [row.id, row]));
  const plan: RecordPlan = { sent: [], failures: new Map(), changes: [] };
  for (const outcome of outcomes) {
    const row = byId.get(outcome.id);
    if (row === undefined) continue;
    byId.delete(outcome.id); // an id given twice is recorded once
    const previous = row.state as MessageStatus;
    const transition = transitionOf(previous, outcome);
    if (!transition.ok) continue;
    if (outcome.kind === 'sent') plan.sent.push(outcome);
    else {
      const list = plan.failures.get(transition.next);
      if (list === undefined) plan.failures.set(transition.next, [outcome]);
      else list.push(outcome);
    }
    plan.changes.push(recordedChangeOf(row, outcome, transition.next));
  }
  return plan;
}

/** The status change a recorded outcome makes to its row. */
function recordedChangeOf(row: RecordableRow, outcome: RecordedOutcome, next: MessageStatus): StatusChange {
  return {
    ...statusChangeOf(row, row.state as MessageStatus, next),
    ...(outcome.kind === 'sent'
      ? outcome.providerMessageId === null
        ? {}
        : { providerMessageId: outcome.providerMessageId }
      : {
          reason: outcome.reason,
          errorCode: outcome.code?.slice(0, ERROR_CODE_CHARS),
          errorText: outcome.text?.slice(0, ERROR_TEXT_CHARS),
        }),
  };
}

/**
 * The state an outcome leads to: from SENDING by the state machine; from UNKNOWN (the claim expired
 * while the request was out) only for SENT, as the provider's word settles UNKNOWN.
 */
export function transitionOf(
  previous: MessageStatus,
  outcome: RecordedOutcome,
): { readonly ok: true; readonly next: MessageStatus } | { readonly ok: false } {
  if (previous === MessageStatus.Unknown) {
    if (outcome.kind !== 'sent') return { ok: false };
    const decision = decideStatus(previous, MessageStatus.Sent);
    return decision.apply ? { ok: true, next: decision.next } : { ok: false };
  }
  const event =
    outcome.kind === 'failed' && outcome.exhausted === true
      ? MessageEvent.ExhaustRetries
      : EVENT_OF[outcome.kind];
  return transitionMessage(MessageStatus.Sending, event);
}
