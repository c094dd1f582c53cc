import { SlidingWindowCounter } from '@ums/domain';
import { PerSecondSeries } from './per-second-series';

/** Request outcomes counted per credential (a bulk request counts each of its messages). */
export type SendOutcome =
  | 'accepted'
  | 'rejectedPermanent'
  | 'throttled'
  | 'errors5xx'
  | 'timeouts'
  | 'authFailures'
  | 'invalidRequests';

export const SEND_OUTCOMES: readonly SendOutcome[] = [
  'accepted',
  'rejectedPermanent',
  'throttled',
  'errors5xx',
  'timeouts',
  'authFailures',
  'invalidRequests',
];

/**
 * Per message id, one number holds both counts: accepted sends below ATTEMPT_UNIT, attempts
 * (every request naming the id that passed auth and shape checks) above it. One Map entry per
 * id (~80-100 bytes with its key string) keeps a few million ids within a few hundred MB.
 */
export const ATTEMPT_UNIT = 2 ** 21;
export const DUPLICATE_IDS_KEPT = 100;

/** Whether a message id was stored for the first time, was known, or was over the budget. */
export type Tracking = 'new' | 'known' | 'untracked';

export class CredentialStats {
  readonly counts: Record<SendOutcome, number> = {
    accepted: 0,
    rejectedPermanent: 0,
    throttled: 0,
    errors5xx: 0,
    timeouts: 0,
    authFailures: 0,
    invalidRequests: 0,
  };
  readonly messages = new Map<string, number>();
  distinctMessages = 0;
  /** Message ids accepted more than once. */
  duplicates = 0;
  duplicateIds: string[] = [];
  /** Accepted sends without a message id, or past the tracking budget. */
  untrackedAccepts = 0;
  /** Limits the credential to its capacity and remembers its busiest second. */
  readonly window = new SlidingWindowCounter(1000);
  readonly perSecond = new PerSecondSeries(120);

  constructor(readonly credentialId: string) {}

  /** Counts an accepted send (and attempt) of `messageId`. */
  acceptMessage(messageId: string, mayTrackNew: boolean): Tracking {
    const packed = this.messages.get(messageId);
    if (packed === undefined) {
      if (!mayTrackNew) return 'untracked';
      this.messages.set(messageId, 1 + ATTEMPT_UNIT);
      this.distinctMessages++;
      return 'new';
    }
    const accepted = acceptedOf(packed);
    this.messages.set(messageId, packed + 1 + ATTEMPT_UNIT);
    if (accepted === 0) this.distinctMessages++;
    if (accepted === 1) {
      this.duplicates++;
      if (this.duplicateIds.length < DUPLICATE_IDS_KEPT) this.duplicateIds.push(messageId);
    }
    return 'known';
  }

  /** Counts a request naming `messageId` that was not accepted (throttled, failed, timed out). */
  attemptMessage(messageId: string, mayTrackNew: boolean): Tracking {
    const packed = this.messages.get(messageId);
    if (packed === undefined) {
      if (!mayTrackNew) return 'untracked';
      this.messages.set(messageId, ATTEMPT_UNIT);
      return 'new';
    }
    this.messages.set(messageId, packed + ATTEMPT_UNIT);
    return 'known';
  }

  reset(): void {
    for (const outcome of SEND_OUTCOMES) this.counts[outcome] = 0;
    this.messages.clear();
    this.distinctMessages = 0;
    this.duplicates = 0;
    this.duplicateIds = [];
    this.untrackedAccepts = 0;
    this.window.reset();
    this.perSecond.reset();
  }
}

export function acceptedOf(packed: number): number {
  return packed % ATTEMPT_UNIT;
}

export function attemptsOf(packed: number): number {
  return Math.floor(packed / ATTEMPT_UNIT);
}
