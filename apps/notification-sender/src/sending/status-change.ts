import type { Channel, FailureReason, MessageStatus } from '@ums/contracts';

/**
 * One state change applied to a message row, for the status topic: a send result recorded by the
 * claim's owner, an expired claim, or a status the provider reported.
 */
export interface StatusChange {
  readonly messageId: string;
  readonly runId: string | null;
  readonly campaignId: string;
  readonly tenantId: string;
  readonly channel: Channel;
  readonly recipient: string;
  readonly previous: MessageStatus;
  readonly status: MessageStatus;
  readonly providerMessageId?: string;
  readonly reason?: FailureReason;
  readonly errorCode?: string;
  readonly errorText?: string;
  /** ISO 8601: the provider's time of a reported status; absent, the event takes its time of publishing. */
  readonly occurredAt?: string;
}

/** The columns of a message row that a status change names, as selected (`id` and `run_id` BIGINT). */
export interface ChangedMessageRow {
  readonly id: string;
  readonly run_id: string | null;
  readonly campaign_id: string;
  readonly tenant_id: string;
  readonly channel: string;
  readonly recipient: string;
}

/** The change of a message row from `previous` to `status`; the caller adds the details. */
export function statusChangeOf(
  row: ChangedMessageRow,
  previous: MessageStatus,
  status: MessageStatus,
): StatusChange {
  return {
    messageId: row.id,
    runId: row.run_id,
    campaignId: row.campaign_id,
    tenantId: row.tenant_id,
    channel: row.channel as Channel,
    recipient: row.recipient,
    previous,
    status,
  };
}
