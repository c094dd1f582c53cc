/**
 * Tracks which offsets of one partition's batch are finished when chunks complete out of
 * order, and yields the offset that is safe to commit: everything below it is durable.
 * Pure (no kafkajs), so the in-order rule is unit-tested on its own.
 */
export class OffsetWatermark {
  private readonly offsets: bigint[];
  private readonly done: boolean[];
  private next = 0;

  /** @param offsets the batch's offsets, ascending (as Kafka delivers them). */
  constructor(offsets: readonly string[]) {
    this.offsets = offsets.map((o) => BigInt(o));
    for (let i = 1; i < this.offsets.length; i++) {
      if ((this.offsets[i] as bigint) <= (this.offsets[i - 1] as bigint)) {
        throw new Error('OffsetWatermark needs strictly ascending offsets');
      }
    }
    this.done = new Array<boolean>(offsets.length).fill(false);
  }

  /** Marks offsets finished; returns the new commit offset if it advanced, else undefined. */
  complete(offsets: readonly string[]): string | undefined {
    for (const offset of offsets) {
      const index = this.indexOf(BigInt(offset));
      this.done[index] = true;
    }
    const before = this.next;
    while (this.next < this.done.length && this.done[this.next] === true) this.next++;
    return this.next > before ? this.commitOffset() : undefined;
  }

  /** The offset to commit (next to read), or undefined while nothing contiguous is finished. */
  commitOffset(): string | undefined {
    if (this.next === 0) return undefined;
    return ((this.offsets[this.next - 1] as bigint) + 1n).toString();
  }

  /** The last finished offset of the contiguous prefix (what kafkajs' resolveOffset takes). */
  lastResolved(): string | undefined {
    return this.next === 0 ? undefined : (this.offsets[this.next - 1] as bigint).toString();
  }

  get allDone(): boolean {
    return this.next === this.done.length;
  }

  private indexOf(offset: bigint): number {
    let lo = 0;
    let hi = this.offsets.length - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      const value = this.offsets[mid] as bigint;
      if (value === offset) return mid;
      if (value < offset) lo = mid + 1;
      else hi = mid - 1;
    }
    throw new Error(`Offset ${offset} is not part of this batch`);
  }
}
