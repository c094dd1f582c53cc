/** Subscriber states; REPLAYING is a resurrected subscriber catching up on what it missed. */
export type SubscriberState = 'ALIVE' | 'DEAD' | 'DISABLED' | 'REPLAYING';

/** A subscriber as the webhook-dispatcher API shows it; the secret only once, on create and rotate. */
export interface SubscriberView {
  readonly id: string;
  readonly tenantId: string;
  readonly url: string;
  readonly eventTypes: readonly string[];
  readonly campaignId: string | null;
  readonly internal: boolean;
  /** 1: one event per request; more: `webhook.batch` requests of up to this many events. */
  readonly maxEventsPerRequest: number;
  readonly state: SubscriberState;
  readonly failuresInWindow?: number;
  readonly lastError: string | null;
  readonly lastSuccessAt: string | null;
  readonly lastFailureAt: string | null;
  readonly deadSince: string | null;
  readonly previousSecretExpiresAt: string | null;
  readonly createdAt: string;
  readonly updatedAt: string;
  readonly secret?: string;
}

export interface SubscriberPage {
  readonly items: readonly SubscriberView[];
  readonly nextAfter: string | null;
}
