import { MessageStatus, RunRequestReason, RunState } from '@ums/contracts';
import { CampaignState } from '@ums/domain';
import { ConflictError } from '@ums/platform';
import type { DataSource, EntityManager } from 'typeorm';
import type { RunEventsRepository } from './run-events.repository';
import type { RunRequestPublisher, RunToRequest } from './run-request.publisher';
import type { LockedRun, RunChange, RunsRepository } from './runs.repository';
import { RunAction, RunsService } from './runs.service';

/** The repository calls an action makes, in memory: one campaign row and the run's reset messages. */
class FakeRuns {
  campaignState: CampaignState | undefined = CampaignState.Completed;
  readonly campaignStates: { campaignId: string; state: CampaignState }[] = [];
  readonly changes: RunChange[] = [];
  readonly resets: MessageStatus[] = [];

  async resetMessages(_manager: EntityManager, _run: LockedRun, from: MessageStatus): Promise<number> {
    this.resets.push(from);
    return Promise.resolve(3);
  }

  async apply(_manager: EntityManager, run: LockedRun, change: RunChange): Promise<number> {
    this.changes.push(change);
    return Promise.resolve(change.bumpEpoch === true ? run.epoch + 1 : run.epoch);
  }

  async lockCampaignState(_manager: EntityManager, _campaignId: string): Promise<CampaignState | undefined> {
    return Promise.resolve(this.campaignState);
  }

  async setCampaignState(_manager: EntityManager, campaignId: string, state: CampaignState): Promise<void> {
    this.campaignStates.push({ campaignId, state });
    return Promise.resolve();
  }
}

class FakePublisher {
  readonly published: { runs: readonly RunToRequest[]; reason: RunRequestReason }[] = [];

  async publish(runs: readonly RunToRequest[], reason: RunRequestReason): Promise<void> {
    this.published.push({ runs, reason });
    return Promise.resolve();
  }
}

const manager = {} as EntityManager;
const finishedRun: LockedRun = {
  id: '42',
  campaignId: 'cmp_1',
  tenantId: 'tenant-a',
  state: RunState.Completed,
  epoch: 3,
};

function setup(): { service: RunsService; runs: FakeRuns; publisher: FakePublisher } {
  const runs = new FakeRuns();
  const publisher = new FakePublisher();
  const service = new RunsService(
    {} as DataSource,
    runs as unknown as RunsRepository,
    publisher as unknown as RunRequestPublisher,
    {} as RunEventsRepository,
  );
  return { service, runs, publisher };
}

describe('RunsService.applyAction, retries', () => {
  it.each([CampaignState.Completed, CampaignState.Stopped])(
    'reopens a %s campaign, resets the failed messages and requests the run at the new epoch',
    async (campaignState) => {
      const { service, runs, publisher } = setup();
      runs.campaignState = campaignState;
      const requeued = await service.applyAction(manager, finishedRun, RunAction.RetryFailed);
      expect(requeued).toBe(3);
      expect(runs.resets).toEqual([MessageStatus.Failed]);
      expect(runs.changes).toEqual([{ state: RunState.Running, bumpEpoch: true, reopen: true }]);
      expect(runs.campaignStates).toEqual([{ campaignId: 'cmp_1', state: CampaignState.Active }]);
      expect(publisher.published).toEqual([
        {
          runs: [
            expect.objectContaining({ runId: '42', campaignId: 'cmp_1', tenantId: 'tenant-a', epoch: 4 }),
          ],
          reason: RunRequestReason.RetryFailed,
        },
      ]);
    },
  );

  it('leaves an active campaign (and a missing one) as it is', async () => {
    for (const campaignState of [CampaignState.Active, undefined]) {
      const { service, runs, publisher } = setup();
      runs.campaignState = campaignState;
      await service.applyAction(manager, finishedRun, RunAction.ResendUnknown);
      expect(runs.resets).toEqual([MessageStatus.Unknown]);
      expect(runs.campaignStates).toEqual([]);
      expect(publisher.published.map((p) => p.reason)).toEqual([RunRequestReason.ResendUnknown]);
    }
  });

  it('refuses a retry when the campaign cannot reopen (paused), before publishing anything', async () => {
    const { service, runs, publisher } = setup();
    runs.campaignState = CampaignState.Paused;
    await expect(service.applyAction(manager, finishedRun, RunAction.RetryFailed)).rejects.toBeInstanceOf(
      ConflictError,
    );
    expect(runs.campaignStates).toEqual([]);
    expect(publisher.published).toEqual([]);
  });
});
