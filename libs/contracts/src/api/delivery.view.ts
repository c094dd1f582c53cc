/** One webhook delivery of a subscriber, as the webhook-dispatcher API shows it. */
export interface DeliveryView {
  readonly id: string;
  readonly eventId: string;
  readonly eventType: string;
  /** PENDING, DELIVERED, RETRYING, DEAD_LETTERED or MISSED. */
  readonly state: string;
  readonly attempts: number;
  readonly lastStatusCode: number | null;
  readonly lastError: string | null;
  readonly nextAttemptAt: string | null;
  readonly deliveredAt: string | null;
  readonly createdAt: string;
}

/** GET /v1/subscribers/:id/deliveries, newest first. */
export interface DeliveryPage {
  readonly items: readonly DeliveryView[];
  /** Pass as `before` for the next (older) page; null on the last page. */
  readonly nextBefore: string | null;
}
