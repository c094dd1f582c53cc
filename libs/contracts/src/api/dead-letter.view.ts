/** A stored dead letter as the campaign API shows it. */
export interface DeadLetterView {
  readonly id: string;
  /** The tenant of the original message; null when unknown (such entries are shown to operators only). */
  readonly tenantId: string | null;
  readonly consumerGroup: string;
  /** As consumed (with the namespace prefix, if one is set). */
  readonly sourceTopic: string;
  readonly sourcePartition: number;
  readonly sourceOffset: string;
  /** The logical topic a replay publishes to (the message's first topic); null when it cannot be replayed. */
  readonly replayTo: string | null;
  readonly key: string | null;
  /** utf8 text, or base64 when the bytes were not valid UTF-8 (`valueEncoding`). */
  readonly value: string | null;
  readonly valueEncoding: 'utf8' | 'base64';
  readonly headers: Record<string, string>;
  readonly errorCode: string;
  readonly reason: string;
  readonly attempts: number;
  readonly failedAt: string | null;
  readonly replays: number;
  readonly replayedAt: string | null;
  readonly createdAt: string;
}

export interface DeadLetterPage {
  readonly items: DeadLetterView[];
  /** Pass as `before` for the next (older) page; null on the last page. */
  readonly nextBefore: string | null;
}

/** POST /v1/dead-letters/replay. */
export interface DeadLetterReplayResult {
  /** Entries published again to their topic, in id order. */
  readonly replayed: string[];
  /** Entries that cannot be replayed, and why (left as they are). */
  readonly refused: { readonly id: string; readonly reason: string }[];
}
