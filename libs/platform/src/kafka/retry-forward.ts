import { KafkaHeaders, type RetryForward } from '@ums/contracts';

/** Characters of the last error a forwarded copy carries in its header. */
export const LAST_ERROR_HEADER_CHARS = 1024;

/**
 * The headers of a copy forwarded to a retry tier: the record's own headers, then when it is due,
 * how many attempts it has had, the topic it belongs to and why it failed. Every retry-tier writer
 * (the platform consumer, the sender's partial retries, the dispatcher) builds them here.
 */
export function retryForwardHeaders(
  base: Readonly<Record<string, string>>,
  forward: RetryForward,
): Record<string, string> {
  return {
    ...base,
    [KafkaHeaders.dueAt]: String(forward.dueAt),
    [KafkaHeaders.attempt]: String(forward.attempt),
    [KafkaHeaders.originTopic]: forward.originTopic,
    [KafkaHeaders.lastError]: forward.lastError.slice(0, LAST_ERROR_HEADER_CHARS),
  };
}

/**
 * The topic a failed record belongs to. A retry tier's copy names it in its origin header, which we
 * wrote; on any other topic the header is whatever a producer put there, so it is not trusted.
 */
export function originTopicOf(
  headers: Readonly<Record<string, string>>,
  readFrom: { readonly topic: string; readonly isRetryTier: boolean },
): string {
  const written = readFrom.isRetryTier ? headers[KafkaHeaders.originTopic] : undefined;
  return written ?? readFrom.topic;
}
