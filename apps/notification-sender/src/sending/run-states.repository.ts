import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';

// Short enough that a pause or stop holds batches within a fraction of a second.
const FRESH_MS = 250;

/**
 * Whether a run is RUNNING, read at most once per FRESH_MS per run (concurrent asks share one
 * query). Batches of paused or stopped runs are held before they take rate-limit tokens, so a
 * stopped million-recipient run does not spend the credential on batches still on Kafka. The
 * claim checks again in its transaction; this is only the early, cheap look.
 */
@Injectable()
export class RunStatesRepository {
  private readonly cache = new Map<string, { readonly at: number; readonly running: Promise<boolean> }>();

  constructor(private readonly dataSource: DataSource) {}

  isRunning(runId: string): Promise<boolean> {
    const now = Date.now();
    const cached = this.cache.get(runId);
    if (cached !== undefined && now - cached.at < FRESH_MS) return cached.running;
    if (this.cache.size > 10_000) this.cache.clear();
    const running = this.dataSource
      .query('SELECT state FROM runs WHERE id = ?', [runId])
      .then((rows: { state: string }[]) => rows[0]?.state === 'RUNNING');
    const entry = { at: now, running };
    this.cache.set(runId, entry);
    running.catch(() => {
      if (this.cache.get(runId) === entry) this.cache.delete(runId);
    });
    return running;
  }
}
