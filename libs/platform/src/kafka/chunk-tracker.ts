import type { InfrastructureFailure } from '../errors/infrastructure-error';

/** A chunk that is waiting for a dependency to answer again. */
export interface DependencyWait extends InfrastructureFailure {
  readonly since: number;
}

/** One chunk in progress: handled, bisected, forwarded or dead-lettered. */
export interface TrackedChunk {
  readonly label: string;
  /** When the chunk started or last came back from waiting: what the stall limit is measured from. */
  progressAt: number;
  wait?: DependencyWait;
}

/**
 * The chunks of one consumer group in progress, for readiness. A chunk that waits for a dependency
 * is waiting, not stalled: it makes readiness say which dependency it waits for, and its stall
 * clock starts again when the dependency answers. Pure (no kafkajs), so the rules are unit-tested.
 */
export class ChunkTracker {
  private readonly chunks = new Set<TrackedChunk>();

  begin(label: string, now = Date.now()): TrackedChunk {
    const chunk: TrackedChunk = { label, progressAt: now };
    this.chunks.add(chunk);
    return chunk;
  }

  end(chunk: TrackedChunk): void {
    this.chunks.delete(chunk);
  }

  /**
   * Marks the chunk as waiting for the failed dependency; returns the wait it was already in, if
   * any (a wait keeps its start when the failing dependency or code changes).
   */
  waiting(chunk: TrackedChunk, failure: InfrastructureFailure, now = Date.now()): DependencyWait | undefined {
    const previous = chunk.wait;
    chunk.wait = { dependency: failure.dependency, code: failure.code, since: previous?.since ?? now };
    return previous;
  }

  /** Part of the chunk succeeded (a half of a split chunk): its stall clock starts again. */
  progressed(chunk: TrackedChunk, now = Date.now()): void {
    chunk.progressAt = now;
  }

  /** Ends the chunk's wait, if any; returns it (for logs and gauges). */
  resumed(chunk: TrackedChunk, now = Date.now()): DependencyWait | undefined {
    const wait = chunk.wait;
    if (wait === undefined) return undefined;
    chunk.wait = undefined;
    chunk.progressAt = now;
    return wait;
  }

  /** The first chunk making no progress for longer than `stallMs` while not waiting for a dependency. */
  stalled(now: number, stallMs: number): TrackedChunk | undefined {
    for (const chunk of this.chunks) {
      if (chunk.wait === undefined && now - chunk.progressAt > stallMs) return chunk;
    }
    return undefined;
  }

  /** The longest wait on a dependency in progress. */
  longestWait(): DependencyWait | undefined {
    let longest: DependencyWait | undefined;
    for (const { wait } of this.chunks) {
      if (wait !== undefined && (longest === undefined || wait.since < longest.since)) longest = wait;
    }
    return longest;
  }
}

/** Readiness detail of a wait, e.g. "waiting for mysql (ECONNREFUSED) since 12 s". */
export function describeWait(wait: DependencyWait, now: number): string {
  return `waiting for ${wait.dependency} (${wait.code}) since ${Math.round((now - wait.since) / 1000)} s`;
}
