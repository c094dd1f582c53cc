/** Kafka headers the platform sets; names are part of the contract with other teams. */
export const KafkaHeaders = {
  /** Epoch milliseconds before which a delay-tier message must not be processed. */
  dueAt: 'ums-due-at',
  /** How many attempts were made before this message was written (1 on the first retry tier). */
  attempt: 'ums-attempt',
  /** The topic the message was first consumed from. */
  originTopic: 'ums-origin-topic',
  /** The last error that sent it to a retry tier or the dead-letter topic. */
  lastError: 'ums-last-error',
  /**
   * Set on a send retry-tier batch that holds only the items of an earlier batch still to be sent
   * (that batch was already counted as finished for the expander's backpressure).
   */
  partialRetry: 'ums-partial-retry',
  /** Set on a message an operator replayed from the dead letters: the stored dead letter's id. */
  deadLetterReplay: 'ums-dead-letter-replay',
} as const;

/** Where and when a failed message is tried again: what a retry-tier copy's headers say. */
export interface RetryForward {
  /** Epoch milliseconds before which the copy must not be processed. */
  readonly dueAt: number;
  /** Attempts made before the copy was written (1 on the first tier). */
  readonly attempt: number;
  /** The topic whose consumers own the message: where a replayed dead letter goes back to. */
  readonly originTopic: string;
  readonly lastError: string;
}

/**
 * CloudEvents 1.0 attributes as Kafka headers (Kafka protocol binding, binary content mode), set on
 * every record of a topic whose definition has `cloudEvent`. The record value is the event data, as
 * JSON; `content-type` says so.
 */
export const CloudEventHeaders = {
  id: 'ce_id',
  type: 'ce_type',
  source: 'ce_source',
  time: 'ce_time',
  specversion: 'ce_specversion',
  subject: 'ce_subject',
  contentType: 'content-type',
} as const;

export const CLOUDEVENTS_SPEC_VERSION = '1.0';
export const CLOUDEVENTS_CONTENT_TYPE = 'application/json';

/** `ce_source` of a record: the producing service, as a URI reference. */
export function cloudEventSource(service: string): string {
  return `/ums/${service}`;
}
