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
 * Mitto's codes: the `responseCode` of a send answer (0 = sent; 1 internal error, worth retrying;
 * 2-6 bad type, text or sender; 7-8 empty or invalid receiver) and the codes of delivery reports.
 * Only 1, THROTTLED and TEMPORARY_ERROR are worth retrying; any other code, known or not, is permanent.
 */
const MITTO_ITEM_RULES = ruleTable({
  '1': retry(ProviderError),
  '2': fail(Rejected),
  '3': fail(Rejected),
  '4': fail(Rejected),
  '5': fail(Rejected),
  '6': fail(Rejected),
  '7': fail(InvalidRecipient),
  '8': fail(InvalidRecipient),
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

/** Classifies one refused send by Mitto's code (a non-zero `responseCode`); REJECTED if absent. */
export function classifyMittoItem(code: string | undefined, message: string | undefined): ProviderFailure {
  const named = code === undefined || code === '' ? 'REJECTED' : code;
  return failureFrom(mittoItemRule(named), { code: named, detail: message });
}

/** Classifies an unsuccessful answer by its status (429, 5xx...; its `code`, if any, is kept). */
export function classifyMittoRequestError(answer: ErrorAnswer): ProviderFailure {
  return classifyErrorAnswer(undefined, answer);
}
