import { FailureReason } from '@ums/contracts';
import { classifyErrorAnswer, type ErrorAnswer } from './http-status-outcome';
import { failureFrom, type FailureRule, type ProviderFailure } from './provider-failure';

const { InvalidRecipient, Blocked, OptedOut, Throttled, Expired, ProviderError, Timeout, Rejected } =
  FailureReason;

/**
 * Reasons for the codes of rejected items in a simulator answer. Whether to retry is the item's
 * own `retryable` flag (the simulator decides); THROTTLED also marks congestion.
 */
const SIMULATOR_REASONS = new Map<string, FailureReason>([
  ['INVALID_NUMBER', InvalidRecipient],
  ['INVALID_RECIPIENT', InvalidRecipient],
  // Failed status callbacks.
  ['UNDELIVERABLE', InvalidRecipient],
  ['BLOCKED', Blocked],
  ['OPTED_OUT', OptedOut],
  ['THROTTLED', Throttled],
  ['EXPIRED', Expired],
  ['TEMPORARY_ERROR', ProviderError],
  ['PROVIDER_ERROR', ProviderError],
  ['TIMEOUT', Timeout],
  ['REJECTED', Rejected],
]);

export function simulatorItemRule(code: string, retryable: boolean): FailureRule {
  const reason = SIMULATOR_REASONS.get(code) ?? (retryable ? ProviderError : Rejected);
  return { reason, retryable, congestion: retryable && code === 'THROTTLED' };
}

/** Every item code with a reason of its own (for tests and documentation). */
export const SIMULATOR_ITEM_CODES: readonly string[] = [...SIMULATOR_REASONS.keys()];

/** Classifies one rejected item of a simulator answer (`retryable` absent counts as false). */
export function classifySimulatorItem(
  code: string | undefined,
  retryable: boolean,
  message?: string,
): ProviderFailure {
  const named = code === undefined || code === '' ? 'REJECTED' : code;
  return failureFrom(simulatorItemRule(named, retryable), { code: named, detail: message });
}

/** Classifies an unsuccessful answer to a whole simulator request by its status (its `code`, if any, is kept). */
export function classifySimulatorRequestError(answer: ErrorAnswer): ProviderFailure {
  return classifyErrorAnswer(undefined, answer);
}
