import type { EachBatchPayload } from 'kafkajs';
import { OffsetWatermark } from './offset-watermark';

export interface CommitSequencerOptions {
  readonly payload: Pick<EachBatchPayload, 'resolveOffset' | 'commitOffsetsIfNecessary'>;
  readonly topic: string;
  readonly partition: number;
  /** The batch's offsets, ascending. */
  readonly offsets: readonly string[];
}

/**
 * Commits one partition's batch in order while its chunks finish in any order: an offset is
 * committed only when everything below it is finished. Commits run one at a time and always with
 * the newest watermark, so they never go backwards.
 */
export class CommitSequencer {
  private readonly watermark: OffsetWatermark;
  private pending: string | undefined;
  private committing: Promise<void> | undefined;

  constructor(private readonly options: CommitSequencerOptions) {
    this.watermark = new OffsetWatermark(options.offsets);
  }

  /** Marks a chunk's offsets finished; resolves once a commit it made possible is done. */
  async finished(offsets: readonly string[]): Promise<void> {
    const commitOffset = this.watermark.complete(offsets);
    if (commitOffset === undefined) return;
    this.options.payload.resolveOffset(this.watermark.lastResolved() as string);
    this.pending = commitOffset;
    this.committing ??= this.drain().finally(() => {
      this.committing = undefined;
    });
    await this.committing;
  }

  /** Resolves once no commit is running. */
  async settled(): Promise<void> {
    if (this.committing !== undefined) await this.committing;
  }

  private async drain(): Promise<void> {
    const { payload, topic, partition } = this.options;
    while (this.pending !== undefined) {
      const offset = this.pending;
      this.pending = undefined;
      await payload.commitOffsetsIfNecessary({ topics: [{ topic, partitions: [{ partition, offset }] }] });
    }
  }
}
