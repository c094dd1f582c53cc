import type { Consumer, EachBatchPayload } from 'kafkajs';
import type { ChunkTracker, TrackedChunk } from './chunk-tracker';

/** Whether the consumer is stopping: shared by its flows and their chunks. */
export interface ConsumerLifecycle {
  stopping: boolean;
}

/** One consumer group of a TopicConsumer: the main topic's, or its retry tiers'. */
export interface Flow {
  readonly consumer: Consumer;
  readonly groupId: string;
  /** Delay-tier flow: holds each message until its due time. */
  readonly delayed: boolean;
  lastActivity: number;
  crashed?: string;
  readonly chunks: ChunkTracker;
  readonly lifecycle: ConsumerLifecycle;
}

/** One eachBatch call: the partition it holds, and whether the group asked for it back. */
export interface BatchScope {
  readonly flow: Flow;
  readonly payload: EachBatchPayload;
  readonly topic: string;
  readonly partition: number;
  /** Set when a heartbeat learns that the group rebalances; shared by the batch's chunks. */
  readonly group: { rebalancing: boolean };
}

/** A chunk in progress within its batch. */
export interface ChunkScope extends BatchScope {
  readonly tracked: TrackedChunk;
}

/** The partition must be let go (shutdown, revoked, rebalancing): work stays unresolved. */
export const STOP = 'stop';
export type Stop = typeof STOP;

/** How often a pause looks whether the partition must be let go. */
const STOP_CHECK_MS = 200;

/** Whether the batch's partition must be let go: the consumer stops, or the group moves it. */
export function mustLetGo(scope: BatchScope): boolean {
  const { payload } = scope;
  return (
    scope.flow.lifecycle.stopping || scope.group.rebalancing || !payload.isRunning() || payload.isStale()
  );
}

/** Sleeps for `ms`, looking often whether the partition must be let go; false if it must. */
export async function pauseUnlessLetGo(scope: BatchScope, ms: number): Promise<boolean> {
  const until = Date.now() + ms;
  for (;;) {
    if (mustLetGo(scope)) return false;
    const left = until - Date.now();
    if (left <= 0) return true;
    await sleep(Math.min(left, STOP_CHECK_MS));
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
