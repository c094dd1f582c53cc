import { MessageErrorCode, MessageStatus } from '@ums/contracts';

/**
 * What our own code does to a message (docs/architecture.md, Guarantees and Sending). Provider-reported
 * progress (SENT -> DELIVERED -> READ) is decideStatus in message-status/, not an event here.
 */
export enum MessageEvent {
  /** A sender claims the row before calling the provider. */
  Claim = 'claim',
  /** The provider accepted the message. */
  Accept = 'accept',
  /** A non-retryable provider error (invalid number, blocked). */
  RejectPermanent = 'reject-permanent',
  /** A retryable provider error: the message waits in a retry tier and is claimed again later. */
  ReleaseForRetry = 'release-for-retry',
  /** The retry tiers are used up (from SENDING after the last attempt, or PENDING when it is dead-lettered). */
  ExhaustRetries = 'exhaust-retries',
  /** The claim timed out without a recorded result; never resent automatically. */
  ClaimExpired = 'claim-expired',
  /**
   * The request may have reached the provider but no answer came back (timeout after sending, reset
   * connection): resending could duplicate, so the message is UNKNOWN until a callback settles it.
   */
  OutcomeAmbiguous = 'outcome-ambiguous',
  /** An operator explicitly resends UNKNOWN messages. */
  ResendUnknown = 'resend-unknown',
  /** An operator retries FAILED messages. */
  RetryFailed = 'retry-failed',
  /** Left out on purpose: the recipient opted out, or the run was stopped. */
  Skip = 'skip',
}

export type MessageTransition =
  | { readonly ok: true; readonly next: MessageStatus }
  | { readonly ok: false; readonly code: MessageErrorCode.TransitionRefused; readonly reason: string };

const S = MessageStatus;
const E = MessageEvent;

const TRANSITIONS: Readonly<Record<MessageStatus, Partial<Record<MessageEvent, MessageStatus>>>> = {
  [S.Pending]: { [E.Claim]: S.Sending, [E.ExhaustRetries]: S.Failed, [E.Skip]: S.Skipped },
  [S.Sending]: {
    [E.Accept]: S.Sent,
    [E.RejectPermanent]: S.Failed,
    [E.ReleaseForRetry]: S.Pending,
    [E.ExhaustRetries]: S.Failed,
    [E.ClaimExpired]: S.Unknown,
    [E.OutcomeAmbiguous]: S.Unknown,
  },
  [S.Sent]: {},
  [S.Delivered]: {},
  [S.Read]: {},
  [S.Failed]: { [E.RetryFailed]: S.Pending },
  [S.Unknown]: { [E.ResendUnknown]: S.Pending },
  [S.Skipped]: {},
};

/** The next status of a message after an event, or a refusal saying why. Pure and total. */
export function transitionMessage(current: MessageStatus, event: MessageEvent): MessageTransition {
  const next = TRANSITIONS[current][event];
  if (next === undefined) {
    return {
      ok: false,
      code: MessageErrorCode.TransitionRefused,
      reason: `a ${current} message cannot ${event}`,
    };
  }
  return { ok: true, next };
}

// Derived once from the table so a SQL guard can never disagree with transitionMessage.
const SOURCES: ReadonlyMap<MessageEvent, readonly MessageStatus[]> = new Map(
  Object.values(E).map((event) => [
    event,
    Object.values(S).filter((from) => TRANSITIONS[from][event] !== undefined),
  ]),
);

/**
 * The statuses an event may leave from, in MessageStatus order; SQL writers build their
 * `WHERE state IN (...)` guard from it. Never empty. Returns a fresh array.
 */
export function sourceStatesOf(event: MessageEvent): MessageStatus[] {
  return [...(SOURCES.get(event) ?? [])];
}
