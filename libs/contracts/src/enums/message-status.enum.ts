/**
 * State of one message (one recipient of one run, or one single send).
 * PENDING -> SENDING -> SENT -> DELIVERED -> READ; FAILED is terminal; UNKNOWN is a claim
 * that timed out without a recorded result (never resent automatically); SKIPPED is a
 * recipient left out on purpose (opted out, run stopped).
 */
export enum MessageStatus {
  Pending = 'PENDING',
  Sending = 'SENDING',
  Sent = 'SENT',
  Delivered = 'DELIVERED',
  Read = 'READ',
  Failed = 'FAILED',
  Unknown = 'UNKNOWN',
  Skipped = 'SKIPPED',
}
