import { FailureReason } from '@ums/contracts';
import { classifyErrorAnswer, type ErrorAnswer } from './http-status-outcome';
import { type FailureRule, type ProviderFailure, ruleTable } from './provider-failure';

const { Blocked, Throttled, ProviderError, Rejected } = FailureReason;
const retry = (reason: FailureReason, congestion = false): FailureRule => ({
  reason,
  retryable: true,
  congestion,
});
const fail = (reason: FailureReason): FailureRule => ({ reason, retryable: false });

/**
 * SES v2 SendEmail errors (the `__type` of the JSON body or the `x-amzn-ErrorType` header) and the
 * common AWS errors any JSON-protocol API may return. A paused or suspended account fails every
 * send until an operator acts, so it is permanent (retrying would only burn the retry budget).
 */
const SES_RULES = ruleTable({
  TooManyRequestsException: retry(Throttled, true),
  // A sending quota (daily or account limit): retried later, but sending slower does not help.
  LimitExceededException: retry(Throttled),
  ThrottlingException: retry(Throttled, true),
  Throttling: retry(Throttled, true),
  BadRequestException: fail(Rejected),
  MessageRejected: fail(Rejected),
  MailFromDomainNotVerifiedException: fail(Rejected),
  NotFoundException: fail(Rejected),
  AccountSuspendedException: fail(Blocked),
  AccountSendingPausedException: fail(Blocked),
  SendingPausedException: fail(Blocked),
  AccessDeniedException: fail(Rejected),
  UnrecognizedClientException: fail(Rejected),
  InvalidClientTokenId: fail(Rejected),
  InvalidSignatureException: fail(Rejected),
  SignatureDoesNotMatch: fail(Rejected),
  IncompleteSignature: fail(Rejected),
  MissingAuthenticationToken: fail(Rejected),
  MissingAuthenticationTokenException: fail(Rejected),
  ExpiredTokenException: fail(Rejected),
  InternalFailure: retry(ProviderError),
  InternalServerError: retry(ProviderError),
  ServiceUnavailable: retry(ProviderError, true),
  ServiceUnavailableException: retry(ProviderError, true),
});

/**
 * The bare error name of an AWS JSON error type: `aws.ses#MessageRejected` and
 * `MessageRejected:http://internal.amazon.com/...` both name `MessageRejected`.
 */
export function awsErrorName(type: string): string {
  const afterHash = type.slice(type.lastIndexOf('#') + 1);
  const colon = afterHash.indexOf(':');
  return (colon < 0 ? afterHash : afterHash.slice(0, colon)).trim();
}

export function sesErrorRule(type: string): FailureRule | undefined {
  return SES_RULES.get(awsErrorName(type));
}

/** Every error name with a rule of its own (for tests and documentation). */
export const SES_ERROR_NAMES: readonly string[] = [...SES_RULES.keys()];

/** Classifies an unsuccessful SES answer (`code` = the AWS error type, reduced to its bare name). */
export function classifySesError(answer: ErrorAnswer): ProviderFailure {
  const code = answer.code === undefined ? undefined : awsErrorName(answer.code);
  const named = code === undefined || code === '' ? { ...answer, code: undefined } : { ...answer, code };
  return classifyErrorAnswer(named.code === undefined ? undefined : sesErrorRule(named.code), named);
}
