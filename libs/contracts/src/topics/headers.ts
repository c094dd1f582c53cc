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
