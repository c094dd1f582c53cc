import { Injectable, type BeforeApplicationShutdown, type OnApplicationBootstrap } from '@nestjs/common';
import { PeriodicRunner, pruneInWindows, withNamedLock } from '@ums/platform';
import { setTimeout as sleep } from 'node:timers/promises';
import { PinoLogger } from 'nestjs-pino';
import { DataSource } from 'typeorm';
import {
  ALL_MESSAGE_STATES,
  archiveLagSeconds,
  lastIdCreatedBefore,
  SETTLED_SINGLE_SEND_STATES,
  WindowBudget,
} from './message-archive-plan';
import { MessageArchiveMetrics } from './message-archive.metrics';
import { MessageArchiveRepository, type WindowResult } from './message-archive.repository';
import { MessageRetentionConfig } from './message-retention.config';

/** One archiver at a time per database: the named lock's name (the database's name is appended). */
const LOCK = { name: 'ums.message_archive.', waitSeconds: 0, perDatabase: true } as const;

export interface ArchiveTick {
  /** False when another replica held the lock (this one did nothing). */
  readonly ran: boolean;
  readonly runMessages: number;
  readonly singleSends: number;
  readonly pruned: number;
}

type MoveWindow = (afterId: bigint) => Promise<WindowResult>;

/**
 * Moves messages past MESSAGE_RETENTION_MS from `messages` to `messages_archive`, every
 * MESSAGE_ARCHIVE_TICK_MS, on one replica at a time (a named lock; the others skip the tick): the
 * messages of runs finished (COMPLETED, STOPPED, FAILED) longer ago than the retention, and single sends
 * no longer in flight whose last change is as old. Each window of MESSAGE_ARCHIVE_WINDOW rows is one
 * transaction, followed by a pause of MESSAGE_ARCHIVE_PAUSE_MS; a tick moves at most
 * MESSAGE_ARCHIVE_MAX_WINDOWS windows and the next one carries on. Run counters stay in `runs`.
 * With MESSAGE_ARCHIVE_RETENTION_MS, archived messages are deleted that long after their archiving.
 */
@Injectable()
export class MessageArchiveService implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private stopping = false;
  private readonly runner = new PeriodicRunner(
    () => this.tick(),
    (error: unknown) => {
      this.metrics.tickErrors.inc();
      this.logger.error({ err: error }, 'Message archiving failed; the next tick carries on');
    },
  );

  constructor(
    private readonly dataSource: DataSource,
    private readonly repository: MessageArchiveRepository,
    private readonly config: MessageRetentionConfig,
    private readonly metrics: MessageArchiveMetrics,
    private readonly logger: PinoLogger,
  ) {
    this.logger.setContext(MessageArchiveService.name);
  }

  onApplicationBootstrap(): void {
    if (this.config.MESSAGE_RETENTION_MS === 0 && this.config.MESSAGE_ARCHIVE_RETENTION_MS === 0) return;
    this.runner.start(this.config.MESSAGE_ARCHIVE_TICK_MS);
  }

  async beforeApplicationShutdown(): Promise<void> {
    this.stopping = true;
    await this.runner.stop();
  }

  /** One tick, if no other replica is archiving. */
  async tick(): Promise<ArchiveTick> {
    const done = await withNamedLock(this.dataSource, LOCK, () => this.archive());
    return done.acquired ? done.value : { ran: false, runMessages: 0, singleSends: 0, pruned: 0 };
  }

  private async archive(): Promise<ArchiveTick> {
    const budget = new WindowBudget({
      maxWindows: this.config.MESSAGE_ARCHIVE_MAX_WINDOWS,
      stopped: () => this.stopping,
    });
    let runMessages = 0;
    let singleSends = 0;
    if (this.config.MESSAGE_RETENTION_MS > 0) {
      const columns = await this.repository.archiveColumns();
      runMessages = await this.archiveRuns(columns, budget);
      singleSends = await this.archiveSingleSends(columns, budget);
      await this.recordLag();
    }
    const pruned = await this.pruneArchive();
    if (runMessages + singleSends + pruned > 0) {
      this.logger.info({ runMessages, singleSends, pruned, windows: budget.spent }, 'Messages archived');
    }
    return { ran: true, runMessages, singleSends, pruned };
  }

  /** The messages of runs finished before the retention, oldest finish first, state by state. */
  private async archiveRuns(columns: readonly string[], budget: WindowBudget): Promise<number> {
    const options = this.windowOptions();
    let moved = 0;
    for (const run of await this.repository.archivableRuns(options.retentionMs)) {
      for (const state of ALL_MESSAGE_STATES) {
        const result = await this.drain(budget, 'run', (afterId) =>
          this.repository.archiveRunWindow(columns, { runId: run.runId, state, afterId }, options),
        );
        moved += result.moved;
        if (!result.complete) return moved;
      }
    }
    return moved;
  }

  /** Settled single sends last changed before the retention, up to the last id created before it. */
  private async archiveSingleSends(columns: readonly string[], budget: WindowBudget): Promise<number> {
    const options = this.windowOptions();
    const bounds = await this.repository.idBounds();
    if (bounds === undefined) return 0;
    const cutoff = new Date(Date.now() - options.retentionMs);
    const maxId = await lastIdCreatedBefore(bounds.lo, bounds.hi, cutoff, (id) =>
      this.repository.firstMessageAt(id),
    );
    if (maxId === undefined) return 0;
    let moved = 0;
    for (const state of SETTLED_SINGLE_SEND_STATES) {
      const result = await this.drain(budget, 'single', (afterId) =>
        this.repository.archiveSingleSendWindow(columns, { state, afterId, maxId }, options),
      );
      moved += result.moved;
      if (!result.complete) return moved;
    }
    return moved;
  }

  /**
   * Moves windows from id 0 until one comes back short (complete) or the tick's budget is spent (not
   * complete), pausing between windows.
   */
  private async drain(
    budget: WindowBudget,
    origin: 'run' | 'single',
    move: MoveWindow,
  ): Promise<{ moved: number; complete: boolean }> {
    let moved = 0;
    let afterId = 0n;
    for (;;) {
      if (!budget.take()) return { moved, complete: false };
      const result = await move(afterId);
      if (result.moved > 0) {
        moved += result.moved;
        this.metrics.archived.inc({ origin }, result.moved);
        this.metrics.windows.inc();
        if (this.config.MESSAGE_ARCHIVE_PAUSE_MS > 0) await sleep(this.config.MESSAGE_ARCHIVE_PAUSE_MS);
      }
      if (result.lastId === undefined || result.moved < this.config.MESSAGE_ARCHIVE_WINDOW) {
        return { moved, complete: true };
      }
      afterId = result.lastId;
    }
  }

  private async recordLag(): Promise<void> {
    const waiting = await this.repository.archivableRuns(this.config.MESSAGE_RETENTION_MS);
    this.metrics.lag.set(
      archiveLagSeconds(waiting[0]?.finishedAt, this.config.MESSAGE_RETENTION_MS, new Date()),
    );
  }

  private async pruneArchive(): Promise<number> {
    const retentionMs = this.config.MESSAGE_ARCHIVE_RETENTION_MS;
    if (retentionMs === 0) return 0;
    return pruneInWindows((window) => this.repository.pruneArchive(retentionMs, window), {
      window: this.config.MESSAGE_ARCHIVE_WINDOW,
      maxWindows: this.config.MESSAGE_ARCHIVE_MAX_WINDOWS,
      onDeleted: (rows) => this.metrics.pruned.inc(rows),
    });
  }

  private windowOptions(): { retentionMs: number; window: number } {
    return { retentionMs: this.config.MESSAGE_RETENTION_MS, window: this.config.MESSAGE_ARCHIVE_WINDOW };
  }
}
