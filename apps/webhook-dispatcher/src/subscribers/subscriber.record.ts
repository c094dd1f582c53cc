import type { SubscriberState } from '@ums/contracts';

/** Subscriber states (libs/contracts, shown by the API); REPLAYING is a resurrected subscriber catching up. */
export type { SubscriberState };

/** A stored subscriber; secrets are SecretBox output, never the plaintext. */
export interface SubscriberRecord {
  readonly id: string;
  readonly tenantId: string;
  readonly url: string;
  readonly eventTypes: readonly string[];
  readonly campaignId: string | null;
  readonly internal: boolean;
  /** Events per POST: 1 is one event per request; more makes every request a `webhook.batch`. */
  readonly maxEventsPerRequest: number;
  readonly sealedSecret: string;
  readonly sealedPreviousSecret: string | null;
  readonly previousSecretExpiresAt: Date | null;
  readonly state: SubscriberState;
  readonly lastError: string | null;
  readonly lastSuccessAt: Date | null;
  readonly lastFailureAt: Date | null;
  readonly deadSince: Date | null;
  readonly createdAt: Date;
  readonly updatedAt: Date;
}
