import { MessageStatus } from '@ums/contracts';

/** What applying a status to a message does. */
export type StatusDecision =
  | { readonly apply: true; readonly next: MessageStatus }
  | { readonly apply: false; readonly why: 'duplicate' | 'regression' | 'terminal' | 'not-reportable' };

// Provider-reported progress: SENT < DELIVERED < READ. Callbacks arrive duplicated and out of
// order (read before delivered), so a row only ever moves forward.
const RANK: Readonly<Record<MessageStatus, number>> = {
  [MessageStatus.Pending]: 0,
  [MessageStatus.Sending]: 0,
  [MessageStatus.Unknown]: 0,
  [MessageStatus.Sent]: 1,
  [MessageStatus.Delivered]: 2,
  [MessageStatus.Read]: 3,
  [MessageStatus.Failed]: 0,
  [MessageStatus.Skipped]: 0,
};

const REPORTABLE = new Set([
  MessageStatus.Sent,
  MessageStatus.Delivered,
  MessageStatus.Read,
  MessageStatus.Failed,
]);

/**
 * Decides whether a reported status (a send result or a provider callback) changes a message.
 * FAILED and SKIPPED are terminal; FAILED is accepted only before any delivery was reported
 * (a late failure after DELIVERED is the provider contradicting itself, and we keep the better
 * news). UNKNOWN (a claim that timed out) is settled by whatever the provider says.
 */
export function decideStatus(current: MessageStatus, reported: MessageStatus): StatusDecision {
  if (!REPORTABLE.has(reported)) return { apply: false, why: 'not-reportable' };
  if (current === MessageStatus.Failed || current === MessageStatus.Skipped) {
    return { apply: false, why: current === reported ? 'duplicate' : 'terminal' };
  }
  if (current === reported) return { apply: false, why: 'duplicate' };
  if (reported === MessageStatus.Failed) {
    return RANK[current] >= RANK[MessageStatus.Delivered]
      ? { apply: false, why: 'regression' }
      : { apply: true, next: reported };
  }
  return RANK[reported] > RANK[current]
    ? { apply: true, next: reported }
    : { apply: false, why: 'regression' };
}
