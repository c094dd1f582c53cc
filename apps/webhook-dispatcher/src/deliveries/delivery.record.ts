export type DeliveryState = 'PENDING' | 'DELIVERED' | 'RETRYING' | 'DEAD_LETTERED' | 'MISSED';

/** One event owed to one subscriber, as the dispatcher works on it. */
export interface DeliveryJob {
  readonly deliveryId: string;
  readonly subscriberId: string;
  readonly eventId: string;
  readonly eventType: string;
  readonly payload: string;
  /** The number of this attempt (1 for the first). */
  readonly attempt: number;
  readonly firstAttemptAt: string;
  /** Where the event or retry was consumed from, for the dead letter of a delivery out of retries. */
  readonly source?: { readonly topic: string; readonly partition: number; readonly offset: string };
}

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
export interface DeliverySettlement {
  readonly deliveryId: string;
  readonly state: DeliveryState;
  readonly attempts: number;
  readonly statusCode?: number;
  readonly error?: string;
  readonly nextAttemptAt?: Date;
}
