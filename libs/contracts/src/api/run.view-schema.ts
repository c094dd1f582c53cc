import { RunState } from '../enums/run-state.enum';
import { RunLifecycleEvent } from '../messages/run-lifecycle.message';
import type { RunActionResult, RunCounters, RunEventList, RunEventView, RunList, RunView } from './run.view';
import {
  arrayOf,
  DATE_TIME,
  DECIMAL_ID,
  described,
  INTEGER,
  oneOfValues,
  orNull,
  STRING,
  viewRef,
  viewSchema,
} from './view-schema';

export const RUN_COUNTERS = viewSchema<RunCounters>('RunCounters', {
  description: "A run's messages by state.",
  properties: {
    total: INTEGER,
    pending: INTEGER,
    sending: INTEGER,
    sent: INTEGER,
    delivered: INTEGER,
    read: INTEGER,
    failed: INTEGER,
    unknown: INTEGER,
    skipped: INTEGER,
  },
  example: {
    total: 1000,
    pending: 0,
    sending: 0,
    sent: 120,
    delivered: 840,
    read: 25,
    failed: 10,
    unknown: 3,
    skipped: 2,
  },
});

export const RUN_EXAMPLE: RunView = {
  id: '81',
  campaignId: 'cmp_01JD6WB2E8T9P4R7Q0M3X5Z6N1',
  fireAt: '2026-12-01T08:00:00.000Z',
  state: RunState.Completed,
  leaseEpoch: 1,
  leaseOwner: null,
  attempts: 1,
  failureReason: null,
  pauseReason: null,
  segments: 1200,
  charged: 1200,
  checkpoint: { cursor: '1000', batchesPublished: 2, batchesFinished: 2, at: '2026-12-01T08:00:04.000Z' },
  expandedAt: '2026-12-01T08:00:03.000Z',
  startedAt: '2026-12-01T08:00:00.000Z',
  finishedAt: '2026-12-01T08:02:10.000Z',
  counters: RUN_COUNTERS.example,
  createdAt: '2026-11-24T10:00:00.000Z',
  updatedAt: '2026-12-01T08:02:10.000Z',
};

export const RUN_VIEW = viewSchema<RunView>('RunView', {
  description: 'A run: state, checkpoint and progress counters.',
  properties: {
    id: DECIMAL_ID,
    campaignId: STRING,
    fireAt: DATE_TIME,
    state: oneOfValues(Object.values(RunState)),
    leaseEpoch: INTEGER,
    leaseOwner: orNull(STRING),
    attempts: INTEGER,
    failureReason: orNull(STRING),
    pauseReason: described(
      orNull(STRING),
      'Why a sender paused the run: CREDITS_EXHAUSTED or QUOTA_EXHAUSTED; null when it did not.',
    ),
    segments: described(
      INTEGER,
      "SMS segments of the run's messages handed to the provider (1 per message on other channels).",
    ),
    charged: described(INTEGER, "Credits the run's messages hold reserved (refunds excluded)."),
    checkpoint: {
      type: 'object',
      required: ['cursor', 'batchesPublished', 'batchesFinished', 'at'],
      properties: {
        cursor: STRING,
        batchesPublished: INTEGER,
        batchesFinished: INTEGER,
        at: orNull(DATE_TIME),
      },
    },
    expandedAt: orNull(DATE_TIME),
    startedAt: orNull(DATE_TIME),
    finishedAt: orNull(DATE_TIME),
    counters: viewRef(RUN_COUNTERS),
    createdAt: DATE_TIME,
    updatedAt: DATE_TIME,
  },
  example: RUN_EXAMPLE,
  uses: [RUN_COUNTERS],
});

export const RUN_LIST = viewSchema<RunList>('RunList', {
  description: "A campaign's runs, newest first.",
  properties: { items: arrayOf(viewRef(RUN_VIEW)) },
  example: { items: [RUN_EXAMPLE] },
  uses: [RUN_VIEW],
});

export const RUN_ACTION_RESULT = viewSchema<RunActionResult>('RunActionResult', {
  description: 'The run after an operator action.',
  properties: {
    run: viewRef(RUN_VIEW),
    requeued: described(INTEGER, 'Messages put back to PENDING (retry-failed, resend-unknown).'),
  },
  optional: ['requeued'],
  example: { run: { ...RUN_EXAMPLE, state: RunState.Running, finishedAt: null }, requeued: 10 },
  uses: [RUN_VIEW],
});

const RUN_EVENT_EXAMPLE: RunEventView = {
  id: '3',
  eventId: 'run-81-3',
  event: RunLifecycleEvent.Completed,
  state: RunState.Completed,
  previousState: RunState.Running,
  reason: null,
  counters: RUN_COUNTERS.example,
  occurredAt: '2026-12-01T08:02:10.000Z',
};

export const RUN_EVENT_VIEW = viewSchema<RunEventView>('RunEventView', {
  description:
    "One lifecycle event of a run, as `ums.campaign.lifecycle.v1` carries it, from the run's history.",
  properties: {
    id: described(DECIMAL_ID, 'Increasing with each event of the run: pass the last one seen as `after`.'),
    eventId: STRING,
    event: oneOfValues(Object.values(RunLifecycleEvent)),
    state: oneOfValues(Object.values(RunState)),
    previousState: oneOfValues(Object.values(RunState)),
    reason: orNull(STRING),
    counters: viewRef(RUN_COUNTERS),
    occurredAt: DATE_TIME,
  },
  example: RUN_EVENT_EXAMPLE,
  uses: [RUN_COUNTERS],
});

export const RUN_EVENT_LIST = viewSchema<RunEventList>('RunEventList', {
  description: "A run's lifecycle events, oldest first.",
  properties: { items: arrayOf(viewRef(RUN_EVENT_VIEW)) },
  example: { items: [RUN_EVENT_EXAMPLE] },
  uses: [RUN_EVENT_VIEW],
});
