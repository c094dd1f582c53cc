import { Injectable } from '@nestjs/common';
import {
  MessageStatus,
  type RunActionResult,
  type RunEventView,
  RunRequestReason,
  RunState,
  CampaignErrorCode,
  RunErrorCode,
} from '@ums/contracts';
import { CampaignEvent, CampaignState, RunEvent, transitionCampaign, transitionRun } from '@ums/domain';
import { ConflictError, NotFoundError, type TenantFilter } from '@ums/platform';
import { DataSource, type EntityManager } from 'typeorm';
import { RunEventsRepository } from './run-events.repository';
import { RunRequestPublisher } from './run-request.publisher';
import type { RunView } from './run.view';
import { type LockedRun, RunsRepository } from './runs.repository';

export enum RunAction {
  Pause = 'pause',
  Resume = 'resume',
  Stop = 'stop',
  Cancel = 'cancel',
  RetryFailed = 'retry-failed',
  ResendUnknown = 'resend-unknown',
}

/** The answer to a run action, shared with the operator CLI (libs/contracts/src/api). */
export type { RunActionResult };

/** Operator actions on runs. Each runs in one transaction with the run row locked. */
@Injectable()
export class RunsService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly runs: RunsRepository,
    private readonly requests: RunRequestPublisher,
    private readonly events: RunEventsRepository,
  ) {}

  /** The run, if its campaign is the tenant's (any for null); else 404 as for a missing run. */
  async get(tenantId: TenantFilter, campaignId: string, runId: string): Promise<RunView> {
    const run = await this.runs.find(tenantId, campaignId, runId);
    if (run === undefined) throw runNotFound(campaignId, runId);
    return run;
  }

  /** The run's state changes after `after`, oldest first; 404 as `get` for a missing or another tenant's run. */
  async history(
    tenantId: TenantFilter,
    campaignId: string,
    runId: string,
    after: string,
    limit: number,
  ): Promise<RunEventView[]> {
    await this.get(tenantId, campaignId, runId);
    return this.events.listOfRun(runId, after, limit);
  }

  /** The campaign's runs, newest first; 404 for a missing campaign and for another tenant's, alike. */
  async list(tenantId: TenantFilter, campaignId: string, limit: number, before?: string): Promise<RunView[]> {
    if (!(await this.runs.campaignVisible(tenantId, campaignId))) {
      throw new NotFoundError(CampaignErrorCode.NotFound, `Campaign ${campaignId} not found`);
    }
    return this.runs.list(campaignId, limit, before, tenantId);
  }

  /** An action on the run, if its campaign is the tenant's (any for null); else 404 as for a missing run. */
  async act(
    tenantId: TenantFilter,
    campaignId: string,
    runId: string,
    action: RunAction,
  ): Promise<RunActionResult> {
    const requeued = await this.dataSource.transaction(async (manager) => {
      const run = await this.runs.lock(manager, tenantId, campaignId, runId);
      if (run === undefined) throw runNotFound(campaignId, runId);
      return this.applyAction(manager, run, action);
    });
    return {
      run: await this.get(tenantId, campaignId, runId),
      ...(requeued === undefined ? {} : { requeued }),
    };
  }

  /**
   * The action on a locked run, in the caller's transaction (campaign-wide actions reuse it).
   * Run requests are published before the commit: if publishing fails nothing changes; if the
   * commit fails after it, the request names an epoch that never landed and expanders refuse it.
   */
  async applyAction(manager: EntityManager, run: LockedRun, action: RunAction): Promise<number | undefined> {
    switch (action) {
      case RunAction.Pause:
        await this.runs.apply(manager, run, { state: next(run, RunEvent.Pause) });
        return undefined;
      case RunAction.Stop:
        await this.runs.apply(manager, run, { state: next(run, RunEvent.Stop), finished: true });
        return undefined;
      case RunAction.Cancel:
        await this.runs.apply(manager, run, {
          state: next(run, RunEvent.Cancel),
          bumpEpoch: true,
          finished: true,
        });
        return undefined;
      case RunAction.Resume: {
        const epoch = await this.runs.apply(manager, run, {
          state: next(run, RunEvent.Resume),
          bumpEpoch: true,
        });
        await this.requests.publish([{ ...run, runId: run.id, epoch }], RunRequestReason.Resumed);
        return undefined;
      }
      case RunAction.RetryFailed:
      case RunAction.ResendUnknown: {
        const retry = action === RunAction.RetryFailed;
        // resend-unknown may also act on a RUNNING run: its expander is fenced and a new one re-publishes.
        const state =
          !retry && run.state === RunState.Running ? RunState.Running : next(run, RunEvent.RetryFailed);
        const requeued = await this.runs.resetMessages(
          manager,
          run,
          retry ? MessageStatus.Failed : MessageStatus.Unknown,
        );
        const epoch = await this.runs.apply(manager, run, { state, bumpEpoch: true, reopen: true });
        await this.reopenCampaign(manager, run.campaignId);
        await this.requests.publish(
          [{ ...run, runId: run.id, epoch }],
          retry ? RunRequestReason.RetryFailed : RunRequestReason.ResendUnknown,
        );
        return requeued;
      }
    }
  }

  /** A finished campaign becomes active again when one of its runs is retried. */
  private async reopenCampaign(manager: EntityManager, campaignId: string): Promise<void> {
    const state = await this.runs.lockCampaignState(manager, campaignId);
    if (state === undefined || state === CampaignState.Active) return;
    const transition = transitionCampaign(state, CampaignEvent.Reopen);
    if (!transition.ok)
      throw new ConflictError(transition.code, `Campaign ${campaignId}: ${transition.reason}`);
    await this.runs.setCampaignState(manager, campaignId, transition.next);
  }
}

/** The same answer for a missing run and another tenant's. */
function runNotFound(campaignId: string, runId: string): NotFoundError {
  return new NotFoundError(RunErrorCode.NotFound, `Run ${runId} of campaign ${campaignId} not found`);
}

function next(run: LockedRun, event: RunEvent): RunState {
  const transition = transitionRun(run.state, event);
  if (!transition.ok)
    throw new ConflictError(transition.code, `Run ${run.id}: ${transition.reason}`, { state: run.state });
  return transition.next;
}
