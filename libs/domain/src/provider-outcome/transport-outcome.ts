import { FailureReason, HttpErrorCode, SendOutcomeCode } from '@ums/contracts';
import { failureFrom, type FailureRule, type ProviderFailure, ruleTable } from './provider-failure';

interface TransportRule extends FailureRule {
  /** The request may have reached the provider before the failure. */
  readonly ambiguous: boolean;
}

const NOT_SENT = false;
const MAYBE_SENT = true;

// Error codes of undici and of Node's net/dns layers. Failures before the connection existed
// (refused, DNS, connect timeout) cannot have sent anything; failures after it may have.
const TRANSPORT_RULES = ruleTable<TransportRule>({
  ECONNREFUSED: { reason: FailureReason.NetworkError, retryable: true, ambiguous: NOT_SENT },
  ENOTFOUND: { reason: FailureReason.NetworkError, retryable: true, ambiguous: NOT_SENT },
  EAI_AGAIN: { reason: FailureReason.NetworkError, retryable: true, ambiguous: NOT_SENT },
  EHOSTUNREACH: { reason: FailureReason.NetworkError, retryable: true, ambiguous: NOT_SENT },
  ENETUNREACH: { reason: FailureReason.NetworkError, retryable: true, ambiguous: NOT_SENT },
  EHOSTDOWN: { reason: FailureReason.NetworkError, retryable: true, ambiguous: NOT_SENT },
  // The SSRF guard refused to connect: the host is, or resolves to, a non-public address. Nothing
  // was sent, and sending again will not help until the credential or the deployment changes.
  [HttpErrorCode.AddressNotPublic]: { reason: FailureReason.Rejected, retryable: false, ambiguous: NOT_SENT },
  UND_ERR_CONNECT_TIMEOUT: {
    reason: FailureReason.Timeout,
    retryable: true,
    congestion: true,
    ambiguous: NOT_SENT,
  },
  ETIMEDOUT: { reason: FailureReason.Timeout, retryable: true, congestion: true, ambiguous: NOT_SENT },
  UND_ERR_HEADERS_TIMEOUT: {
    reason: FailureReason.Timeout,
    retryable: true,
    congestion: true,
    ambiguous: MAYBE_SENT,
  },
  UND_ERR_BODY_TIMEOUT: {
    reason: FailureReason.Timeout,
    retryable: true,
    congestion: true,
    ambiguous: MAYBE_SENT,
  },
  UND_ERR_SOCKET: { reason: FailureReason.NetworkError, retryable: true, ambiguous: MAYBE_SENT },
  ECONNRESET: { reason: FailureReason.NetworkError, retryable: true, ambiguous: MAYBE_SENT },
  EPIPE: { reason: FailureReason.NetworkError, retryable: true, ambiguous: MAYBE_SENT },
  UND_ERR_CLOSED: { reason: FailureReason.NetworkError, retryable: true, ambiguous: MAYBE_SENT },
  UND_ERR_DESTROYED: { reason: FailureReason.NetworkError, retryable: true, ambiguous: MAYBE_SENT },
  // The answer was larger than we read: the provider answered something, we cannot tell what.
  UND_ERR_RES_EXCEEDED_MAX_SIZE: {
    reason: FailureReason.ProviderError,
    retryable: true,
    ambiguous: MAYBE_SENT,
  },
});

const UNKNOWN_RULE: TransportRule = { reason: FailureReason.Other, retryable: true, ambiguous: MAYBE_SENT };

/** The rule for a transport error code; codes we do not know are retried as possibly sent. */
export function transportRule(code: string | undefined): TransportRule {
  return (code === undefined ? undefined : TRANSPORT_RULES.get(code)) ?? UNKNOWN_RULE;
}

/** Every transport error code with a rule of its own (for tests and documentation). */
export const KNOWN_TRANSPORT_CODES: readonly string[] = [...TRANSPORT_RULES.keys()];

/**
 * The failure for a request that got no HTTP answer. `aborted` means our own caller cancelled it
 * (shutdown): retryable, and ambiguous because it may already have been written.
 */
export function transportFailure(code: string | undefined, detail: string, aborted = false): ProviderFailure {
  if (aborted) {
    return failureFrom(
      { reason: FailureReason.Other, retryable: true },
      { code: SendOutcomeCode.Aborted, detail, ambiguous: MAYBE_SENT },
    );
  }
  const rule = transportRule(code);
  return failureFrom(rule, {
    code: code ?? SendOutcomeCode.TransportError,
    detail,
    ambiguous: rule.ambiguous,
  });
}
