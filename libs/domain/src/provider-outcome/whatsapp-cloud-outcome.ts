import { FailureReason } from '@ums/contracts';
import { classifyErrorAnswer, type ErrorAnswer } from './http-status-outcome';
import { type FailureRule, type ProviderFailure, ruleTable } from './provider-failure';

const { InvalidRecipient, Blocked, OptedOut, Throttled, Expired, ProviderError, Rejected } = FailureReason;
const retry = (reason: FailureReason, congestion = false): FailureRule => ({
  reason,
  retryable: true,
  congestion,
});
const fail = (reason: FailureReason): FailureRule => ({ reason, retryable: false });

/**
 * WhatsApp Cloud API error codes (Graph API `error.code`, also `statuses[].errors[].code` in
 * status webhooks), from Meta's "Error codes" reference. Rate limits of the app, the business
 * account or the phone number are congestion; the pair rate limit (131056, too many messages to
 * one recipient) is retried later but does not slow the whole credential down.
 */
const WHATSAPP_RULES = ruleTable({
  // Graph API generic errors.
  '0': fail(Rejected), // AuthException
  '1': retry(ProviderError), // API Unknown
  '2': retry(ProviderError), // API Service (temporary)
  '3': fail(Rejected), // API Method: capability or permission
  '4': retry(Throttled, true), // API Too Many Calls (app rate limit)
  '10': fail(Rejected), // Permission denied
  '100': fail(Rejected), // Invalid parameter
  '190': fail(Rejected), // Access token expired or invalid
  '200': fail(Rejected), // Permission (200-299)
  '368': fail(Blocked), // Temporarily blocked for policy violations
  '80007': retry(Throttled, true), // WABA rate limit
  // Cloud API (13xxxx).
  '130429': retry(Throttled, true), // Cloud API throughput reached
  '130472': fail(Rejected), // Recipient is part of an experiment
  '130497': fail(Blocked), // Business may not message users in this country
  '131000': retry(ProviderError), // Something went wrong
  '131005': fail(Rejected), // Access denied
  '131008': fail(Rejected), // Required parameter missing
  '131009': fail(Rejected), // Parameter value not valid
  '131016': retry(ProviderError), // Service unavailable
  '131021': fail(InvalidRecipient), // Recipient cannot be the sender
  '131026': fail(InvalidRecipient), // Message undeliverable (not a WhatsApp user, old app, ...)
  '131031': fail(Blocked), // Business account locked
  '131042': fail(Rejected), // Payment method problem
  '131045': fail(Rejected), // Phone number not registered (certificate)
  '131047': fail(Expired), // More than 24 hours since the user last replied
  '131048': retry(Throttled, true), // Spam rate limit of the phone number
  '131049': fail(Rejected), // Not delivered to keep ecosystem engagement healthy
  '131050': fail(OptedOut), // User stopped marketing messages
  '131051': fail(Rejected), // Unsupported message type
  '131052': fail(Rejected), // Media download error
  '131053': fail(Rejected), // Media upload error
  '131056': retry(Throttled), // Pair rate limit (one recipient)
  '131057': retry(ProviderError), // Account in maintenance mode
  '132000': fail(Rejected), // Template parameter count mismatch
  '132001': fail(Rejected), // Template does not exist (name or language)
  '132005': fail(Rejected), // Template text too long
  '132007': fail(Rejected), // Template format character policy violated
  '132012': fail(Rejected), // Template parameter format mismatch
  '132015': fail(Rejected), // Template paused
  '132016': fail(Rejected), // Template disabled
  '133004': retry(ProviderError), // Server temporarily unavailable
  '133010': fail(Rejected), // Phone number not registered
  '135000': fail(Rejected), // Generic user error
});

/** The rule for one WhatsApp error code (permission codes 200-299 share one), or undefined. */
export function whatsAppErrorRule(code: string): FailureRule | undefined {
  return WHATSAPP_RULES.get(code) ?? (/^2\d\d$/.test(code) ? WHATSAPP_RULES.get('200') : undefined);
}

/** Every code with a rule of its own (for tests and documentation). */
export const WHATSAPP_ERROR_CODES: readonly string[] = [...WHATSAPP_RULES.keys()];

/** Classifies an unsuccessful WhatsApp Cloud API answer (`error.code` of the body as the code). */
export function classifyWhatsAppError(answer: ErrorAnswer): ProviderFailure {
  return classifyErrorAnswer(answer.code === undefined ? undefined : whatsAppErrorRule(answer.code), answer);
}
