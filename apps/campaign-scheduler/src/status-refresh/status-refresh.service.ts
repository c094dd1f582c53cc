import { Injectable } from '@nestjs/common';
import type { StatusRefreshView } from '@ums/contracts';
import type { TenantFilter } from '@ums/platform';
import { RunsService } from '../runs/runs.service';
import { StatusRefreshReadConfig } from './status-refresh.config';
import { StatusRefreshRequestsRepository } from './status-refresh.repository';

/**
 * An operator's status refresh of a run: recorded for the senders, which serve it before their
 * periodic refresh (every UNKNOWN and SENT row of the run, no age threshold), and the run's counts.
 */
@Injectable()
export class StatusRefreshService {
  constructor(
    private readonly runs: RunsService,
    private readonly requests: StatusRefreshRequestsRepository,
    private readonly config: StatusRefreshReadConfig,
  ) {}

  /** Records a request; 404 as for the run when it is missing or another tenant's. */
  async request(
    tenantId: TenantFilter,
    campaignId: string,
    runId: string,
    requestedBy: string,
  ): Promise<StatusRefreshView> {
    await this.runs.get(tenantId, campaignId, runId);
    await this.requests.request(runId, requestedBy);
    return this.view(runId);
  }

  /** The run's unsettled rows and its latest request; 404 as for the run. */
  async get(tenantId: TenantFilter, campaignId: string, runId: string): Promise<StatusRefreshView> {
    await this.runs.get(tenantId, campaignId, runId);
    return this.view(runId);
  }

  private async view(runId: string): Promise<StatusRefreshView> {
    const [unsettled, latest] = await Promise.all([
      this.requests.unsettled(runId, this.config.STATUS_REFRESH_SENT_AFTER_MS),
      this.requests.latest(runId),
    ]);
    return {
      runId,
      unsettled,
      lastRefresh:
        latest === undefined
          ? null
          : {
              requestedAt: latest.requestedAt.toISOString(),
              finishedAt: latest.finishedAt?.toISOString() ?? null,
              settled: latest.settled,
              unresolved: latest.unresolved,
            },
    };
  }
}
