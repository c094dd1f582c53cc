/**
 * Batches of one partition a sender works on at once, and partitions at once, per flow (campaign
 * batches, priority sends, retry tiers). Together they bound what one process holds claimed: a
 * SIGKILL leaves at most SENDER_IN_FLIGHT_BATCHES x batch size messages SENDING, later UNKNOWN.
 */
export const SEND_BATCHES_PER_PARTITION = 4;
export const SEND_PARTITIONS_CONCURRENTLY = 4;
const FLOWS = 3;
export const SENDER_IN_FLIGHT_BATCHES = FLOWS * SEND_BATCHES_PER_PARTITION * SEND_PARTITIONS_CONCURRENTLY;
