import { Injectable } from '@nestjs/common';
import type { RunPauseReason } from '@ums/contracts';
import { PinoLogger } from 'nestjs-pino';
import { DataSource } from 'typeorm';
import { RunAction, RunsService } from '../runs/runs.service';
import { PausedRunsRepository } from './paused-runs.repository';

/** Runs resumed per transaction. */
const BATCH = 100;

/**
 * Resumes runs a sender paused, through the run "resume" action itself (RunsService.applyAction):
 * each run's lease moves to a new epoch, a run request is published, pause_reason is cleared and the
 * change goes to the run_events outbox. Only runs PAUSED with the given reason: a run a person
 * paused (pause_reason NULL) is never touched.
 */
@Injectable()
export class PausedRunsResumer {
  constructor(
    private readonly dataSource: DataSource,
    private readonly paused: PausedRunsRepository,
    private readonly runs: RunsService,
    private readonly logger: PinoLogger,
  ) {
    this.logger.setContext(PausedRunsResumer.name);
  }

  /** Resumes the tenant's runs paused for `reason` (on `channel`, when given); returns how many. */
  async resume(tenantId: string, reason: RunPauseReason, channel?: string): Promise<number> {
    let resumed = 0;
    for (;;) {
      const ids = await this.dataSource.transaction(async (manager) => {
        const runs = await this.paused.lock(manager, {
          tenantId,
          reason,
          limit: BATCH,
          ...(channel === undefined ? {} : { channel }),
        });
        for (const run of runs) await this.runs.applyAction(manager, run, RunAction.Resume);
        return runs.map((run) => run.id);
      });
      resumed += ids.length;
      if (ids.length > 0) this.logger.info({ tenantId, reason, channel, runs: ids }, 'Paused runs resumed');
      if (ids.length < BATCH) return resumed;
    }
  }
}
