import type { DeliveryOutcome } from './delivery-outcome';

/** The states of a delivery row. */
export type WebhookDeliveryState = 'PENDING' | 'DELIVERED' | 'RETRYING' | 'DEAD_LETTERED' | 'MISSED';

/** Where a delivery's event or retry was consumed from. */
export interface WebhookJobSource {
  readonly topic: string;
  readonly partition: number;
  readonly offset: string;
}

/** One event owed to one subscriber, as the dispatcher works on it. */
export interface WebhookDeliveryJob {
  readonly deliveryId: string;
  readonly subscriberId: string;
  readonly eventId: string;
  readonly eventType: string;
  readonly payload: string;
  /** The number of this attempt (1 for the first). */
  readonly attempt: number;
  readonly firstAttemptAt: string;
  /** Where the event or retry was consumed from: the coordinates of the dead letter of a delivery out of retries. */
  readonly source?: WebhookJobSource;
}

/** An attempt's outcome plus whether the SSRF guard refused the address (no connection was made). */
export type WebhookAttemptResult = DeliveryOutcome & { readonly refused?: boolean };

/** An attempt (or a decision not to attempt) waiting to be written back. */
export type FinishedWebhookAttempt =
  | {
      readonly job: WebhookDeliveryJob;
      readonly kind: 'attempted';
      readonly result: WebhookAttemptResult;
      /** Set on all but one delivery of a batch: one request is one failure in the window, not N. */
      readonly sharedRequest?: true;
    }
  /** Never attempted: its subscriber's lane was full. */
  | { readonly job: WebhookDeliveryJob; readonly kind: 'spilled' }
  /** Not attempted: its subscriber is not ALIVE. */
  | { readonly job: WebhookDeliveryJob; readonly kind: 'missed' }
  /** Not attempted: its subscriber no longer exists. */
  | { readonly job: WebhookDeliveryJob; readonly kind: 'orphan' };

/** A settled attempt (or decision), written back in bulk. */
export interface WebhookSettlement {
  readonly deliveryId: string;
  readonly state: WebhookDeliveryState;
  readonly attempts: number;
  readonly statusCode?: number;
  readonly error?: string;
  readonly nextAttemptAt?: Date;
}

/**
 * Outcomes of one attempt or decision: delivered, failed (retried), dead_lettered (out of retries),
 * gone (410, subscriber disabled), missed (kept for a resurrect), refused (address not public),
 * spilled (subscriber backlog full, sent to the first tier unattempted).
 */
export type WebhookOutcomeLabel =
  'delivered' | 'failed' | 'dead_lettered' | 'gone' | 'missed' | 'refused' | 'spilled';
