/**
 * Extra random delay on a retry, as a fraction of its tier's delay (0..1): subscribers that failed
 * together are not retried together.
 */
export const WEBHOOK_RETRY_JITTER_RATIO = 0.2;

/** Attempts of one missed delivery during a resurrect replay before the subscriber is left dead again. */
export const WEBHOOK_REPLAY_ATTEMPTS = 5;

/** How long a replay by time may take to read the status and inbound topics up to their ends. */
export const WEBHOOK_REPLAY_READ_TIMEOUT_MS = 300_000;
