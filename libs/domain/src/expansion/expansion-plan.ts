/** Where a run's expansion stands against its senders (docs/architecture.md, Backpressure). */
export interface ExpansionProgress {
  readonly batchesPublished: number;
  readonly batchesFinished: number;
}

/**
 * Batches published but not yet finished by senders. Senders may finish a re-published
 * duplicate too, so this can dip below zero; it never blocks then.
 */
export function batchesAhead(progress: ExpansionProgress): number {
  return progress.batchesPublished - progress.batchesFinished;
}

/**
 * Whether the next step may be published: the run stays at most `window` batches ahead of its
 * senders, so pause and stop act within a window and a large run never floods the topic.
 */
export function mayPublishStep(progress: ExpansionProgress, window: number): boolean {
  return batchesAhead(progress) < window;
}

/** Splits items into consecutive batches of at most `size`. */
export function chunkItems<T>(items: readonly T[], size: number): T[][] {
  if (!Number.isInteger(size) || size < 1)
    throw new RangeError(`batch size must be a positive integer, got ${size}`);
  const batches: T[][] = [];
  for (let i = 0; i < items.length; i += size) batches.push(items.slice(i, i + size));
  return batches;
}

/** A batch id that tells where it came from: run, lease epoch and sequence within the run. */
export function expansionBatchId(runId: string, epoch: number, seq: number): string {
  return `run-${runId}.e${epoch}.b${seq}`;
}
