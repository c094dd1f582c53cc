import { CampaignErrorCode } from '@ums/contracts';
/** State of a campaign; the values are the ones the campaigns.state CHECK constraint allows. */
export enum CampaignState {
  Draft = 'DRAFT',
  Active = 'ACTIVE',
  Paused = 'PAUSED',
  Stopped = 'STOPPED',
  Completed = 'COMPLETED',
  Archived = 'ARCHIVED',
}

/** What can happen to a campaign. */
export enum CampaignEvent {
  /** Leave the draft: the schedule (now, at, cron) takes effect. */
  Start = 'start',
  Pause = 'pause',
  Resume = 'resume',
  /** Stop for good; runs in flight are stopped too. */
  Stop = 'stop',
  /** A one-off campaign whose run finished. */
  Complete = 'complete',
  /** Retry-failed on a finished campaign makes it active again for that run. */
  Reopen = 'reopen',
  /** Hide a campaign that is not going anywhere (a draft or a finished one). */
  Archive = 'archive',
}

export type CampaignTransition =
  | { readonly ok: true; readonly next: CampaignState }
  | { readonly ok: false; readonly code: CampaignErrorCode.TransitionRefused; readonly reason: string };

const S = CampaignState;
const E = CampaignEvent;

const TRANSITIONS: Readonly<Record<CampaignState, Partial<Record<CampaignEvent, CampaignState>>>> = {
  [S.Draft]: { [E.Start]: S.Active, [E.Archive]: S.Archived },
  [S.Active]: { [E.Pause]: S.Paused, [E.Stop]: S.Stopped, [E.Complete]: S.Completed },
  [S.Paused]: { [E.Resume]: S.Active, [E.Stop]: S.Stopped },
  [S.Stopped]: { [E.Reopen]: S.Active, [E.Archive]: S.Archived },
  [S.Completed]: { [E.Reopen]: S.Active, [E.Archive]: S.Archived },
  [S.Archived]: {},
};

/** The next state of a campaign after an event, or a refusal saying why. Pure and total. */
export function transitionCampaign(current: CampaignState, event: CampaignEvent): CampaignTransition {
  const next = TRANSITIONS[current][event];
  if (next === undefined) {
    return {
      ok: false,
      code: CampaignErrorCode.TransitionRefused,
      reason: `a ${current} campaign cannot ${event}`,
    };
  }
  return { ok: true, next };
}

/** States in which contacts may be added to the audience (a finished campaign's audience is history). */
export function canImportAudience(state: CampaignState): boolean {
  return state === S.Draft || state === S.Active || state === S.Paused;
}

/** States in which the scheduler (or a send request) may create runs. */
export function canCreateRuns(state: CampaignState): boolean {
  return state === S.Active;
}
