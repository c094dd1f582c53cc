import type { MessageStatus } from '../enums/message-status.enum';

/** POST /v1/messages: a single send, stored and published on the priority lane. */
export interface MessageSendView {
  /** The Idempotency-Key when the request named one (the Kafka path's requestId), else a new id. */
  readonly requestId: string;
  readonly messageId: string;
  /** PENDING (published to the sender), SKIPPED (the recipient opted out), or later when sent before. */
  readonly status: MessageStatus;
}

/** POST /v1/sends: a bulk send, its campaign created with its audience and started. */
export interface BulkSendView {
  readonly requestId: string;
  readonly campaignId: string;
  /** The campaign's run (now, or at sendAt); absent when the campaign has none. */
  readonly runId?: string;
  /** The import of the request's recipients or audience file (a URL import runs in the background). */
  readonly audienceImportId?: string;
}
