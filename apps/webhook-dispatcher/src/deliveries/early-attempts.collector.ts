import type { DeliveryKeyRow } from './deliveries.repository';
import type { DeliveryJob } from './delivery.record';
import type { AttemptSink, FinishedAttempt } from './delivery-dispatcher.service';

/**
 * The attempts of one chunk of fresh events, made before their rows exist (see FanOutService).
 * Until `close()` their results are kept; `close()` returns the delivered ones, whose rows are then
 * written DELIVERED. Every other result, in already or still to come, goes to the write-back once
 * `adopt()` has given its job the stored row's id, or is dropped when that row was not this chunk's
 * to attempt (a redelivered event whose row another attempt or a retry owns).
 */
export class EarlyAttempts {
  readonly sink: AttemptSink = (finished) => this.take(finished);
  private readonly results = new Map<DeliveryJob, FinishedAttempt>();
  private closed = false;
  /** After `adopt()`: each job still owed, with its row's id, or null when the row is not ours. */
  private adopted?: Map<DeliveryJob, DeliveryJob | null>;
  private waiting = new Set<DeliveryJob>();
  private wake?: () => void;

  constructor(private readonly settleLater: (finished: FinishedAttempt) => void) {}

  /** Resolves once every job of `waitFor` has a result, or after `graceMs`, whichever comes first. */
  settled(waitFor: readonly DeliveryJob[], graceMs: number): Promise<void> {
    this.waiting = new Set(waitFor.filter((job) => !this.results.has(job)));
    if (this.waiting.size === 0) return Promise.resolve();
    return new Promise((resolve) => {
      const timer = setTimeout(() => this.wake?.(), graceMs);
      this.wake = () => {
        clearTimeout(timer);
        this.wake = undefined;
        resolve();
      };
    });
  }

  /** Stops collecting: returns the delivered attempts (with their status); the rest wait for `adopt()`. */
  close(): Map<DeliveryJob, number> {
    this.closed = true;
    this.wake?.();
    const delivered = new Map<DeliveryJob, number>();
    for (const [job, finished] of this.results) {
      if (finished.kind === 'attempted' && finished.result.kind === 'delivered') {
        delivered.set(job, finished.result.status);
        this.results.delete(job);
      }
    }
    return delivered;
  }

  /**
   * The stored rows of the jobs not delivered by `close()`: a PENDING row is this chunk's (its result
   * is written back against it); any other state belongs to an earlier attempt of a redelivered event.
   */
  adopt(rows: ReadonlyMap<DeliveryJob, DeliveryKeyRow | undefined>): void {
    const adopted = new Map<DeliveryJob, DeliveryJob | null>();
    for (const [job, row] of rows) {
      adopted.set(
        job,
        row?.state === 'PENDING'
          ? {
              ...job,
              deliveryId: row.id,
              attempt: row.attempts + 1,
              firstAttemptAt: row.createdAt.toISOString(),
            }
          : null,
      );
    }
    this.adopted = adopted;
    for (const finished of this.results.values()) this.handOver(finished);
    this.results.clear();
  }

  private take(finished: FinishedAttempt): void {
    if (this.closed && this.adopted !== undefined) {
      this.handOver(finished);
      return;
    }
    this.results.set(finished.job, finished);
    if (!this.closed && this.waiting.delete(finished.job) && this.waiting.size === 0) this.wake?.();
  }

  private handOver(finished: FinishedAttempt): void {
    const job = this.adopted?.get(finished.job);
    if (job === undefined || job === null) return;
    this.settleLater({ ...finished, job });
  }
}
