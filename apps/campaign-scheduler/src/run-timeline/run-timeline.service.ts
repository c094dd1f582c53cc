import { Injectable } from '@nestjs/common';
import { RunErrorCode, type RunTimelineRateSecond, type RunTimelineView } from '@ums/contracts';
import { NotFoundError, type TenantFilter, TooManyError } from '@ums/platform';
import {
  type CredentialSecondRecord,
  CredentialRateSecondsRepository,
} from '../credentials/credential-rate-seconds.repository';
import { RunTimelineRepository, type TimelineRun } from './run-timeline.repository';
import { SerialQueue } from './serial-queue';
import { secondsOfWindow, timelineWindow, windowSeconds } from './timeline-window';
import { VersionedCache } from './versioned-cache';

/** Timeline loads that may wait behind the one running; one more is answered 429. */
const MAX_WAITING = 8;
/** Finished runs' timelines kept (each at most 900 seconds and 900 rate rows). */
const CACHED_RUNS = 16;

/**
 * Run timelines: the last 15 minutes of a run's activity per second, read from the messages' times and
 * `credential_rate_seconds`. The reads of a run's messages cost in proportion to its size, so a process
 * loads one timeline at a time (others wait their turn, at most MAX_WAITING, then 429), callers asking
 * for the same run at the same version share one load, and a finished run's timeline is kept by run
 * id and updated_at (an update of the run, e.g. a retry, makes it miss).
 */
@Injectable()
export class RunTimelineService {
  private readonly queue = new SerialQueue(MAX_WAITING);
  private readonly finished = new VersionedCache<RunTimelineView>(CACHED_RUNS);
  private readonly loading = new Map<string, Promise<RunTimelineView>>();

  constructor(
    private readonly repository: RunTimelineRepository,
    private readonly rateSeconds: CredentialRateSecondsRepository,
  ) {}

  /** The run's timeline; 404 for a run the caller may not see, 429 while too many loads wait. */
  async timeline(tenant: TenantFilter, campaignId: string, runId: string): Promise<RunTimelineView> {
    const run = await this.repository.findRun(tenant, campaignId, runId);
    if (run === undefined) {
      throw new NotFoundError(RunErrorCode.NotFound, `Run ${runId} of campaign ${campaignId} not found`);
    }
    const version = run.updatedAt.toISOString();
    const cached = run.finishedAt === null ? undefined : this.finished.get(run.id, version);
    if (cached !== undefined) return cached;
    const key = `${run.id}@${version}`;
    const shared = this.loading.get(key);
    if (shared !== undefined) return shared;
    const answer = this.queue.offer(() => this.load(run));
    if (!answer.taken) {
      throw new TooManyError(
        RunErrorCode.TimelineBusy,
        'This process is loading as many run timelines as it may; retry later',
      );
    }
    this.loading.set(key, answer.result);
    try {
      const view = await answer.result;
      if (run.finishedAt !== null) this.finished.set(run.id, version, view);
      return view;
    } finally {
      this.loading.delete(key);
    }
  }

  private async load(run: TimelineRun): Promise<RunTimelineView> {
    const window = timelineWindow(run, run.now);
    const empty = windowSeconds(window) === 0;
    const [counts, rate] = empty
      ? [[], []]
      : await Promise.all([
          this.repository.stageCounts(run.id, window),
          this.rateSeconds
            .between(run.credentialId, run.tenantId, window.from, window.to)
            .then((records) => records.map(toRateSecond)),
        ]);
    return {
      from: window.from.toISOString(),
      to: window.to.toISOString(),
      seconds: secondsOfWindow(window, counts),
      rate,
    };
  }
}

function toRateSecond(record: CredentialSecondRecord): RunTimelineRateSecond {
  const { secondAt, rate, accepted, congested, errors5xx, timeouts, decreases } = record;
  return { at: secondAt.toISOString(), rate, accepted, congested, errors5xx, timeouts, decreases };
}
