import { RunState } from '../enums/run-state.enum';
import { CAMPAIGN_PROPERTIES, CAMPAIGN_VIEW, MESSAGE_CONTENT } from './campaign.view-schema';
import type {
  LiveCampaignItem,
  LiveCampaignsFrame,
  LiveRunSummary,
  RunRateSecond,
  RunSample,
  RunSampleHistory,
} from './live.view';
import { RUN_COUNTERS } from './run.view-schema';
import {
  arrayOf,
  DATE_TIME,
  DECIMAL_ID,
  described,
  INTEGER,
  oneOfValues,
  orNull,
  viewRef,
  viewSchema,
} from './view-schema';

const NUMBER = { type: 'number' } as const;

export const LIVE_RUN_SUMMARY = viewSchema<LiveRunSummary>('LiveRunSummary', {
  description: "A campaign's latest run: its state and progress counters.",
  properties: {
    id: DECIMAL_ID,
    state: oneOfValues(Object.values(RunState)),
    counters: viewRef(RUN_COUNTERS),
  },
  example: { id: '81', state: RunState.Running, counters: RUN_COUNTERS.example },
  uses: [RUN_COUNTERS],
});

const LIVE_CAMPAIGN_EXAMPLE: LiveCampaignItem = {
  ...CAMPAIGN_VIEW.example,
  latestRun: LIVE_RUN_SUMMARY.example,
};

export const LIVE_CAMPAIGN_ITEM = viewSchema<LiveCampaignItem>('LiveCampaignItem', {
  description: 'A campaign as `GET /v1/campaigns` shows it, with its latest run (null before its first).',
  properties: { ...CAMPAIGN_PROPERTIES, latestRun: orNull(viewRef(LIVE_RUN_SUMMARY)) },
  example: LIVE_CAMPAIGN_EXAMPLE,
  uses: [MESSAGE_CONTENT, LIVE_RUN_SUMMARY],
});

export const LIVE_CAMPAIGNS_FRAME = viewSchema<LiveCampaignsFrame>('LiveCampaignsFrame', {
  description:
    "`event: campaigns`, once a second: the caller's campaigns, newest first (at most 50), each with its latest run.",
  properties: {
    at: described(DATE_TIME, 'The second the frame was taken.'),
    campaigns: arrayOf(viewRef(LIVE_CAMPAIGN_ITEM)),
  },
  example: { at: '2026-12-01T08:01:00.000Z', campaigns: [LIVE_CAMPAIGN_EXAMPLE] },
  uses: [LIVE_CAMPAIGN_ITEM],
});

export const RUN_RATE_SECOND = viewSchema<RunRateSecond>('RunRateSecond', {
  description:
    "What the run's credential's rate limiter did in its last complete second, all sender replicas together.",
  properties: {
    rate: described(NUMBER, 'The AIMD rate (messages per second) the second ended at.'),
    accepted: INTEGER,
    congested: described(INTEGER, "The provider's 429s (or its equivalent)."),
    errors5xx: INTEGER,
    timeouts: INTEGER,
    decreases: described(INTEGER, 'AIMD decreases (congestion events).'),
  },
  example: { rate: 42.5, accepted: 42, congested: 1, errors5xx: 0, timeouts: 0, decreases: 1 },
});

const RUN_SAMPLE_EXAMPLE: RunSample = {
  at: '2026-12-01T08:01:00.000Z',
  state: RunState.Running,
  counters: RUN_COUNTERS.example,
  rate: RUN_RATE_SECOND.example,
};

export const RUN_SAMPLE = viewSchema<RunSample>('RunSample', {
  description:
    "`event: sample`, once a second: the run's state, cumulative counters, and its credential's last complete second.",
  properties: {
    at: described(DATE_TIME, 'The second the sample was taken.'),
    state: oneOfValues(Object.values(RunState)),
    counters: viewRef(RUN_COUNTERS),
    rate: orNull(viewRef(RUN_RATE_SECOND)),
  },
  example: RUN_SAMPLE_EXAMPLE,
  uses: [RUN_COUNTERS, RUN_RATE_SECOND],
});

export const RUN_SAMPLE_HISTORY = viewSchema<RunSampleHistory>('RunSampleHistory', {
  description:
    "`event: history`, first on a run's stream: the samples the service kept of the run, oldest first (up to 15 min).",
  properties: { samples: arrayOf(viewRef(RUN_SAMPLE)) },
  example: { samples: [RUN_SAMPLE_EXAMPLE] },
  uses: [RUN_SAMPLE],
});
