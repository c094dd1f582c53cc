import { FailureReason } from '@ums/contracts';
import { classifyErrorAnswer, type ErrorAnswer } from './http-status-outcome';
import { failureFrom, type FailureRule, type ProviderFailure, ruleTable } from './provider-failure';

const { InvalidRecipient, Blocked, OptedOut, Throttled, Expired, ProviderError, Rejected } = FailureReason;
const retry = (reason: FailureReason, congestion = false): FailureRule => ({
  reason,
  retryable: true,
  congestion,
});
const fail = (reason: FailureReason): FailureRule => ({ reason, retryable: false });

/**
 * Codes of rejected items in a Mitto bulk answer (`results[].code`). Only THROTTLED and
 * TEMPORARY_ERROR are worth retrying; any other code, known or not, is permanent.
 */
const MITTO_ITEM_RULES = ruleTable({
  THROTTLED: retry(Throttled, true),
  TEMPORARY_ERROR: retry(ProviderError),
  INVALID_NUMBER: fail(InvalidRecipient),
  INVALID_RECIPIENT: fail(InvalidRecipient),
  // Delivery reports: the handset could not be reached.
  UNDELIVERABLE: fail(InvalidRecipient),
  BLOCKED: fail(Blocked),
  BLACKLISTED: fail(Blocked),
  OPTED_OUT: fail(OptedOut),
  UNSUBSCRIBED: fail(OptedOut),
  EXPIRED: fail(Expired),
  INVALID_SENDER: fail(Rejected),
  INVALID_TEXT: fail(Rejected),
  TEXT_TOO_LONG: fail(Rejected),
  INSUFFICIENT_FUNDS: fail(Rejected),
});

const UNKNOWN_ITEM_CODE: FailureRule = fail(Rejected);

export function mittoItemRule(code: string): FailureRule {
  return MITTO_ITEM_RULES.get(code) ?? UNKNOWN_ITEM_CODE;
}

/** Every item code with a rule of its own (for tests and documentation). */
export const MITTO_ITEM_CODES: readonly string[] = [...MITTO_ITEM_RULES.keys()];

/** Classifies one rejected item of a bulk answer; `code` is required by the shape, REJECTED if absent. */
export function classifyMittoItem(code: string | undefined, message: string | undefined): ProviderFailure {
  const named = code === undefined || code === '' ? 'REJECTED' : code;
  return failureFrom(mittoItemRule(named), { code: named, detail: message });
}

/** Classifies an unsuccessful answer to a whole bulk request by its status (its `code`, if any, is kept). */
export function classifyMittoRequestError(answer: ErrorAnswer): ProviderFailure {
  return classifyErrorAnswer(undefined, answer);
}
