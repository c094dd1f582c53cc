import { Injectable } from '@nestjs/common';
import { selectRows } from '@ums/platform';
import { DataSource } from 'typeorm';

// Short enough that a pause or stop holds batches within a fraction of a second.
const FRESH_MS = 250;

/** A run's state (VARCHAR). */
interface RunStateRow {
  readonly state: string;
}

interface RunReading {
  /** The last answer and when its query was sent. */
  settled?: { readonly at: number; readonly running: boolean };
  /** The query in flight, shared by every ask meanwhile. */
  reading?: Promise<boolean>;
}

/**
 * Whether a run is RUNNING, read at most once per FRESH_MS per run (concurrent asks share one
 * query). Batches of paused or stopped runs are held before they take rate-limit tokens, so a
 * stopped million-recipient run does not spend the credential on batches still on Kafka. The
 * claim checks again in its transaction; this is only the early, cheap look. So an answer older
 * than FRESH_MS is still given (at most one query's time longer) while the next one is read: under
 * load the batches that found it expired waited 27 ms on average for the query.
 */
@Injectable()
export class RunStatesRepository {
  private readonly cache = new Map<string, RunReading>();

  constructor(private readonly dataSource: DataSource) {}

  isRunning(runId: string): Promise<boolean> {
    const now = Date.now();
    let entry = this.cache.get(runId);
    if (entry === undefined) {
      if (this.cache.size > 10_000) this.cache.clear();
      entry = {};
      this.cache.set(runId, entry);
    }
    const { settled } = entry;
    if (settled !== undefined && now - settled.at < FRESH_MS) return Promise.resolve(settled.running);
    const reading = entry.reading ?? this.read(runId, entry, now);
    return settled === undefined ? reading : Promise.resolve(settled.running);
  }

  private read(runId: string, entry: RunReading, now: number): Promise<boolean> {
    const reading = selectRows<RunStateRow>(this.dataSource, 'SELECT state FROM runs WHERE id = ?', [
      runId,
    ]).then(([row]) => row?.state === 'RUNNING');
    entry.reading = reading;
    reading.then(
      (running) => {
        entry.settled = { at: now, running };
        if (entry.reading === reading) entry.reading = undefined;
      },
      () => {
        if (entry.reading === reading) entry.reading = undefined;
      },
    );
    return reading;
  }
}
