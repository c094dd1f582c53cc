import { FailureReason } from '@ums/contracts';
import { classifyErrorAnswer, type ErrorAnswer } from './http-status-outcome';
import { type FailureRule, type ProviderFailure, ruleTable } from './provider-failure';

const { InvalidRecipient, Blocked, OptedOut, Throttled, ProviderError, Rejected, Other } = FailureReason;
const retry = (reason: FailureReason, congestion = false): FailureRule => ({
  reason,
  retryable: true,
  congestion,
});
const fail = (reason: FailureReason): FailureRule => ({ reason, retryable: false });

/**
 * Twilio error codes: REST API answers to "create message" (`code` of the error body) and the
 * delivery errors of status callbacks (`ErrorCode`, 30xxx), from Twilio's error dictionary.
 */
const TWILIO_RULES = ruleTable({
  '14107': retry(Throttled, true), // SMS send rate limit exceeded
  '20003': fail(Rejected), // Authentication failed
  '20404': fail(Rejected), // Resource not found (account)
  '20429': retry(Throttled, true), // Too many requests
  '20500': retry(ProviderError), // Internal server error
  '20503': retry(ProviderError, true), // Service unavailable
  '21211': fail(InvalidRecipient), // Invalid 'To' phone number
  '21212': fail(Rejected), // Invalid 'From' phone number
  '21214': fail(InvalidRecipient), // 'To' phone number cannot be reached
  '21217': fail(InvalidRecipient), // Phone number does not appear to be valid
  '21401': fail(InvalidRecipient), // Invalid phone number
  '21408': fail(Blocked), // Permission to send to this region is not enabled
  '21601': fail(InvalidRecipient), // Phone number is not a valid SMS-capable number
  '21602': fail(Rejected), // Message body is required
  '21603': fail(Rejected), // 'From' phone number is required
  '21604': fail(InvalidRecipient), // 'To' phone number is required
  '21606': fail(Rejected), // 'From' number is not SMS-capable for this account
  '21608': fail(Rejected), // Trial account: unverified 'To' number
  '21609': fail(Rejected), // Invalid StatusCallback URL
  '21610': fail(OptedOut), // Recipient replied STOP
  '21611': retry(Throttled, true), // 'From' number has too many queued messages
  '21612': fail(InvalidRecipient), // 'To' number is not reachable through this route
  '21614': fail(InvalidRecipient), // 'To' number is not a valid mobile number
  '21617': fail(Rejected), // Body exceeds 1600 characters
  '21635': fail(InvalidRecipient), // 'To' number is a landline
  '30001': retry(Throttled, true), // Queue overflow
  '30002': fail(Blocked), // Account suspended
  '30003': fail(Other), // Unreachable destination handset
  '30004': fail(Blocked), // Message blocked
  '30005': fail(InvalidRecipient), // Unknown destination handset
  '30006': fail(InvalidRecipient), // Landline or unreachable carrier
  '30007': fail(Blocked), // Carrier filtering
  '30008': fail(ProviderError), // Unknown delivery error
  '30034': fail(Blocked), // Sender not registered for A2P 10DLC
});

export function twilioErrorRule(code: string): FailureRule | undefined {
  return TWILIO_RULES.get(code);
}

/** Every code with a rule of its own (for tests and documentation). */
export const TWILIO_ERROR_CODES: readonly string[] = [...TWILIO_RULES.keys()];

/** Classifies an unsuccessful Twilio answer (`code` of the error body as the code). */
export function classifyTwilioError(answer: ErrorAnswer): ProviderFailure {
  return classifyErrorAnswer(answer.code === undefined ? undefined : twilioErrorRule(answer.code), answer);
}
