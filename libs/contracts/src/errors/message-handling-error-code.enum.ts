/** Why a consumed record could not be decoded: the `errorCode` of its dead letter. */
export enum DecodeErrorCode {
  /** The record has no value. */
  EmptyMessage = 'EMPTY_MESSAGE',
  /** The value is not JSON. */
  InvalidJson = 'INVALID_JSON',
  /** The value is JSON but not a valid message of the topic's class. */
  SchemaViolation = 'SCHEMA_VIOLATION',
}

/**
 * Why the platform, or a handler refusing a record for good (NonRetryableError), dead-letters a
 * consumed record or sends it to a retry tier: the `errorCode` of the dead letter.
 */
export enum MessageHandlingErrorCode {
  /** The handler failed on every attempt and retry tier. */
  RetriesExhausted = 'RETRIES_EXHAUSTED',
  /** The retry tier refused the forwarded record (too large, a bad header): dead-lettered instead. */
  RetryForwardRefused = 'RETRY_FORWARD_REFUSED',
  /** The broker refused the full dead letter: this one keeps the coordinates and a prefix of the value. */
  DeadLetterTruncated = 'DEAD_LETTER_TRUNCATED',
  /** A provider status event that names no message of its credential. */
  MessageUnknown = 'MESSAGE_UNKNOWN',
  /** A provider event (an inbound message) whose credential does not exist. */
  CredentialUnknown = 'CREDENTIAL_UNKNOWN',
  /** A single send request without a recipient. */
  RecipientMissing = 'RECIPIENT_MISSING',
  /** A single send request whose recipient address is not valid for its channel. */
  RecipientInvalid = 'RECIPIENT_INVALID',
  /** A batch message was claimed by another sender (its row was locked): sent to the first retry tier. */
  ClaimContended = 'CLAIM_CONTENDED',
  /** The database refused a single send's row without an error (INSERT IGNORE made it a warning). */
  SendRequestNotStored = 'SEND_REQUEST_NOT_STORED',
}
