import { FailureReason, SendOutcomeCode } from '@ums/contracts';
import type { ProviderFailure } from '../provider-outcome/provider-failure';

/** What a provider said about one message, as the adapters classify it. */
export type SendResult =
  { readonly kind: 'accepted'; readonly providerMessageId: string | null } | ProviderFailure;

/**
 * Codes the adapters give to messages they never put on the wire (an earlier request of the same
 * send met congestion or a dead connection, the send was cancelled, the request waited past its
 * claim's window, or it could not start soon enough after its rate-limit slot): safe to send again,
 * and not an attempt.
 */
export const NOT_SENT_CODES: ReadonlySet<string> = new Set([
  SendOutcomeCode.NotAttempted,
  SendOutcomeCode.Aborted,
  SendOutcomeCode.ClaimWindowPassed,
  SendOutcomeCode.SlotMissed,
]);

export interface DispositionContext {
  /** Attempts counted on the row, including the one that produced this result. */
  readonly attempts: number;
  /** Delay of each retry tier, shortest first; an attempt past the last tier is the last one. */
  readonly tierDelaysMs: readonly number[];
  readonly nowMs: number;
  /** Extra random delay as a fraction of the tier delay (it only lengthens the wait). */
  readonly jitterRatio: number;
  readonly random?: () => number;
}

interface FailureDetail {
  readonly reason: FailureReason;
  readonly code: string;
  readonly detail?: string;
}

/** Where a message goes after one send attempt. */
export type SendDisposition =
  | { readonly action: 'sent'; readonly providerMessageId: string | null }
  /** Will fail the same way every time: FAILED at once with the provider's code. */
  | ({ readonly action: 'fail' } & FailureDetail)
  /** May have reached the provider: UNKNOWN, never resent automatically (a callback can settle it). */
  | ({ readonly action: 'unknown' } & FailureDetail)
  /** Retryable, but the tiers are used up: FAILED, and a copy goes to the dead-letter topic. */
  | ({ readonly action: 'exhausted' } & FailureDetail)
  /** Back to PENDING and onto retry tier `tier`, due at `dueAt`. */
  | ({
      readonly action: 'retry';
      readonly tier: number;
      readonly dueAt: number;
      /** The message never left us: the attempt counted by its claim is given back. */
      readonly notSent: boolean;
    } & FailureDetail);

/**
 * Decides what one send result does to its message (docs/architecture.md, Sending): accepted is SENT;
 * permanent is FAILED at once; a result that may have reached the provider is UNKNOWN rather than
 * risking a duplicate; other retryable results wait on the tier for the attempts made so far (one
 * long enough for the provider's Retry-After), until the tiers are used up.
 */
export function disposeSendResult(result: SendResult, context: DispositionContext): SendDisposition {
  if (result.kind === 'accepted') return { action: 'sent', providerMessageId: result.providerMessageId };
  const detail: FailureDetail =
    result.detail === undefined
      ? { reason: result.reason, code: result.code }
      : { reason: result.reason, code: result.code, detail: result.detail };
  if (result.kind === 'permanent') return { action: 'fail', ...detail };
  if (result.ambiguous) return { action: 'unknown', ...detail };
  const notSent = NOT_SENT_CODES.has(result.code);
  const made = Math.max(0, notSent ? context.attempts - 1 : context.attempts);
  const tiers = context.tierDelaysMs;
  if (tiers.length === 0 || made > tiers.length) return { action: 'exhausted', ...detail };
  let tier = Math.max(0, made - 1);
  const retryAfter = result.retryAfterMs ?? 0;
  while (tier < tiers.length - 1 && (tiers[tier] as number) < retryAfter) tier++;
  const delay = tiers[tier] as number;
  const jitter = Math.floor(delay * context.jitterRatio * (context.random ?? Math.random)());
  return {
    action: 'retry',
    tier,
    dueAt: context.nowMs + Math.max(delay + jitter, retryAfter),
    notSent,
    ...detail,
  };
}
