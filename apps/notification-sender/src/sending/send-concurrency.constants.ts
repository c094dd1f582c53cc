/**
 * Batches of one partition in flight at once, and partitions at once, per flow (campaign batches,
 * priority sends, retry tiers). Campaigns sharing a partition are served in log order within this
 * window: wide enough to hold the batches one run may have ahead (EXPANDER_MAX_BATCHES_AHEAD, 50)
 * and some of another, so both ask for tokens and the limiter shares the credential between them.
 * Waiting batches hold no claims (tokens come first), so the window costs no exactly-once exposure:
 * what a process holds claimed is bounded by SENDER_MAX_CLAIMED_MESSAGES.
 */
export const SEND_BATCHES_PER_PARTITION = 64;
/** Every partition a process owns makes progress (the topics have 12). */
export const SEND_PARTITIONS_CONCURRENTLY = 12;
