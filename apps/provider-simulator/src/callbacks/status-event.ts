import type { Channel } from '@ums/contracts';
import type { SimulatedStatus } from '@ums/domain';

/** A send the simulator accepted: what its status callbacks are about. */
export interface AcceptedSend {
  /** Our message id, as the request carried it (callback data, tag, reference...). */
  readonly messageId: string | undefined;
  readonly providerMessageId: string;
  readonly to: string;
  readonly from: string | undefined;
  readonly channel: Channel;
  /** Where this send's callbacks go when the request named it (Twilio's StatusCallback). */
  readonly callbackUrl?: string;
}

/** One status callback waiting to be posted. */
export interface StatusEvent {
  readonly send: AcceptedSend;
  readonly status: SimulatedStatus;
  readonly credentialId: string;
  readonly url: string;
  /** The credential's callback epoch when planned; a reset or removal bumps it and drops the event. */
  readonly epoch: number;
}
