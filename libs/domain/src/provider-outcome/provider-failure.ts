import type { FailureReason } from '@ums/contracts';

/** Longest code and detail we keep (the messages table's error_code and error_text columns). */
export const FAILURE_CODE_MAX_LENGTH = 64;
export const FAILURE_DETAIL_MAX_LENGTH = 1024;

/**
 * A send that may succeed if tried again later. `congestion` tells the rate limiter (AIMD) to slow
 * the credential down; `ambiguous` says the provider may already have accepted the message (the
 * request was sent but no answer came back), so resending risks a duplicate.
 */
export interface RetryableFailure {
  readonly kind: 'retryable';
  readonly reason: FailureReason;
  readonly code: string;
  readonly detail?: string;
  readonly retryAfterMs?: number;
  readonly congestion: boolean;
  readonly ambiguous: boolean;
}

/** A send that will fail the same way every time: the message is FAILED at once. */
export interface PermanentFailure {
  readonly kind: 'permanent';
  readonly reason: FailureReason;
  readonly code: string;
  readonly detail?: string;
}

export type ProviderFailure = RetryableFailure | PermanentFailure;

/** How one provider error code (or HTTP status) is treated. */
export interface FailureRule {
  readonly reason: FailureReason;
  readonly retryable: boolean;
  /** Only meaningful when retryable: the provider says we are sending too fast. */
  readonly congestion?: boolean;
}

/** A code table as a Map, so that codes such as "constructor" never find Object.prototype members. */
export function ruleTable<R extends FailureRule>(rules: Readonly<Record<string, R>>): ReadonlyMap<string, R> {
  return new Map(Object.entries(rules));
}

/** Extra facts about one failed answer, beyond the rule that matched it. */
export interface FailureFacts {
  readonly code: string;
  readonly detail?: string;
  readonly retryAfterMs?: number;
  readonly ambiguous?: boolean;
}

/** Applies a rule to one failure: codes and details are cut to what the messages table keeps. */
export function failureFrom(rule: FailureRule, facts: FailureFacts): ProviderFailure {
  const code = facts.code.slice(0, FAILURE_CODE_MAX_LENGTH);
  const detail = facts.detail === undefined ? undefined : truncateDetail(facts.detail);
  if (!rule.retryable) {
    return detail === undefined
      ? { kind: 'permanent', reason: rule.reason, code }
      : { kind: 'permanent', reason: rule.reason, code, detail };
  }
  const failure: {
    -readonly [K in keyof RetryableFailure]: RetryableFailure[K];
  } = {
    kind: 'retryable',
    reason: rule.reason,
    code,
    congestion: rule.congestion === true,
    ambiguous: facts.ambiguous === true,
  };
  if (detail !== undefined) failure.detail = detail;
  if (facts.retryAfterMs !== undefined) failure.retryAfterMs = facts.retryAfterMs;
  return failure;
}

function truncateDetail(detail: string): string {
  // Provider messages can be long or multi-line; logs and the error_text column want one short line.
  const oneLine = detail.replace(/\s+/g, ' ').trim();
  return oneLine.length <= FAILURE_DETAIL_MAX_LENGTH
    ? oneLine
    : `${oneLine.slice(0, FAILURE_DETAIL_MAX_LENGTH - 3)}...`;
}
