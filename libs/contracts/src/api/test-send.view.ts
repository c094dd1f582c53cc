import type { MessageStatus } from '../enums/message-status.enum';

/** One recipient of a test send and the single-send message that carries it, in its current state. */
export interface TestSendRecipientView {
  /** The recipient's index in the request. */
  readonly position: number;
  /** The address as stored (E.164, or the normalized e-mail address). */
  readonly recipient: string;
  readonly messageId: string;
  readonly state: MessageStatus;
  readonly errorCode: string | null;
  readonly errorText: string | null;
  readonly sentAt: string | null;
  readonly deliveredAt: string | null;
  readonly readAt: string | null;
  readonly failedAt: string | null;
  readonly updatedAt: string;
}

/** A test send: a campaign's content sent to a few given recipients on the priority lane. */
export interface TestSendView {
  readonly id: string;
  readonly campaignId: string;
  /** Who made it: the caller's principal (an API key id, a JWT subject, the operator). */
  readonly actor: string;
  /** The Idempotency-Key the request named, or null. */
  readonly requestId: string | null;
  readonly createdAt: string;
  readonly recipients: TestSendRecipientView[];
}

export interface TestSendPage {
  readonly items: TestSendView[];
  /** Pass as `after` for the next (older) page; null on the last page. */
  readonly nextAfter: string | null;
}
