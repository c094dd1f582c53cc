import type { RunTimelineRateSecond, RunTimelineSecond, RunTimelineView } from './run-timeline.view';
import { arrayOf, DATE_TIME, described, INTEGER, viewRef, viewSchema } from './view-schema';

const COUNT = INTEGER;

export const RUN_TIMELINE_SECOND = viewSchema<RunTimelineSecond>('RunTimelineSecond', {
  description:
    "How many of the run's messages reached each stage in one second, by their rows' times (sent_at, " +
    'delivered_at, read_at, failed_at).',
  properties: {
    at: described(DATE_TIME, 'The second (UTC).'),
    sent: COUNT,
    delivered: COUNT,
    read: COUNT,
    failed: COUNT,
    unknown: described(
      COUNT,
      'Messages in UNKNOWN when the timeline is read, by the second their row last changed (when they ' +
        'became UNKNOWN); one that left UNKNOWN since (resent, or settled by a late answer) is not counted.',
    ),
  },
  example: { at: '2026-12-01T08:02:09.000Z', sent: 42, delivered: 38, read: 3, failed: 1, unknown: 0 },
});

export const RUN_TIMELINE_RATE_SECOND = viewSchema<RunTimelineRateSecond>('RunTimelineRateSecond', {
  description:
    "One second of the run's campaign's credential's rate limiter (`credential_rate_seconds`), all sender " +
    'replicas together.',
  properties: {
    at: described(DATE_TIME, 'The second (UTC).'),
    rate: described({ type: 'number' }, 'The AIMD rate (messages per second) the second ended at.'),
    accepted: COUNT,
    congested: described(COUNT, "The provider's 429s (or its equivalent)."),
    errors5xx: COUNT,
    timeouts: COUNT,
    decreases: described(COUNT, 'AIMD decreases (congestion events).'),
  },
  example: {
    at: '2026-12-01T08:02:09.000Z',
    rate: 42.5,
    accepted: 42,
    congested: 1,
    errors5xx: 0,
    timeouts: 0,
    decreases: 1,
  },
});

export const RUN_TIMELINE_VIEW = viewSchema<RunTimelineView>('RunTimelineView', {
  description:
    "The last 15 minutes of a run's activity, per second: the window ends at the run's finishedAt (before it " +
    "finishes: the database's current time) and starts at its startedAt or 15 minutes before its end, " +
    'whichever is later.',
  properties: {
    from: described(DATE_TIME, "The window's first second, included."),
    to: described(DATE_TIME, "The second after the window's last one, excluded."),
    seconds: described(
      arrayOf(viewRef(RUN_TIMELINE_SECOND)),
      'Every second of [from, to), oldest first, zeros included; empty for a run not started.',
    ),
    rate: described(
      arrayOf(viewRef(RUN_TIMELINE_RATE_SECOND)),
      "The seconds of [from, to) the credential's limiter recorded, oldest first; a second without any has no entry.",
    ),
  },
  example: {
    from: '2026-12-01T08:02:08.000Z',
    to: '2026-12-01T08:02:11.000Z',
    seconds: [
      { at: '2026-12-01T08:02:08.000Z', sent: 40, delivered: 35, read: 2, failed: 0, unknown: 0 },
      RUN_TIMELINE_SECOND.example,
      { at: '2026-12-01T08:02:10.000Z', sent: 0, delivered: 12, read: 1, failed: 0, unknown: 0 },
    ],
    rate: [RUN_TIMELINE_RATE_SECOND.example],
  },
  uses: [RUN_TIMELINE_SECOND, RUN_TIMELINE_RATE_SECOND],
});
