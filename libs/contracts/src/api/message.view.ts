import type { Channel } from '../enums/channel.enum';
import type { MessageStatus } from '../enums/message-status.enum';

/** One message of a run, as listed and exported. Ids are BIGINT: strings, never JS numbers. */
export interface RunMessageView {
  readonly id: string;
  readonly recipient: string;
  readonly state: MessageStatus;
  readonly attempts: number;
  readonly providerMessageId: string | null;
  readonly reason: string | null;
  readonly errorCode: string | null;
  readonly errorText: string | null;
  readonly sentAt: string | null;
  readonly deliveredAt: string | null;
  readonly readAt: string | null;
  readonly failedAt: string | null;
  readonly updatedAt: string;
}

export interface RunMessagePage {
  readonly items: RunMessageView[];
  /** Pass as `after` for the next page; null on the last page. */
  readonly nextAfter: string | null;
}

/** One message looked up on its own (a run's message or a single send), with where it came from. */
export interface MessageView extends RunMessageView {
  readonly tenantId: string;
  readonly campaignId: string;
  readonly runId: string | null;
  readonly channel: Channel;
  readonly credentialId: string;
  readonly lane: string;
  readonly idempotencyKey: string | null;
  readonly createdAt: string;
  /** True when the message is past its retention and read from the archive (it changes no more). */
  readonly archived: boolean;
}
