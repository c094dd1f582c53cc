import type { WebhookDeliveryJob, WebhookDeliveryState, WebhookSettlement } from '@ums/domain';

export type DeliveryState = WebhookDeliveryState;

/** One event owed to one subscriber, as the dispatcher works on it. */
export type DeliveryJob = WebhookDeliveryJob;

/** A delivery row as the API shows it. */
export interface DeliveryRecord {
  readonly id: string;
  readonly subscriberId: string;
  readonly eventId: string;
  readonly eventType: string;
  readonly payload: string;
  readonly state: DeliveryState;
  readonly attempts: number;
  readonly lastStatusCode: number | null;
  readonly lastError: string | null;
  readonly nextAttemptAt: Date | null;
  readonly deliveredAt: Date | null;
  readonly createdAt: Date;
  readonly updatedAt: Date;
}

/** A settled attempt (or decision), written back in bulk. */
export type DeliverySettlement = WebhookSettlement;
