import type { StatusRefreshView } from './status-refresh.view';
import { DATE_TIME, DECIMAL_ID, described, INTEGER, orNull, viewSchema } from './view-schema';

const COUNT = INTEGER;

const SETTLED = {
  type: 'object',
  description: 'Rows the refresh changed, by the state they went to.',
  required: ['sent', 'delivered', 'read', 'failed', 'notReceived'],
  properties: {
    sent: COUNT,
    delivered: COUNT,
    read: COUNT,
    failed: described(COUNT, 'FAILED as the provider reported it.'),
    notReceived: described(
      COUNT,
      'FAILED with reason not-received: the provider never received them; resend-unknown sends them again.',
    ),
  },
};

export const STATUS_REFRESH_VIEW = viewSchema<StatusRefreshView>('StatusRefreshView', {
  description:
    "A run's messages whose fate is not known (UNKNOWN, and SENT without a callback), and its latest status " +
    'refresh: the senders ask providers with a status API and settle what they answer; nothing is resent.',
  properties: {
    runId: DECIMAL_ID,
    unsettled: {
      type: 'object',
      required: ['unknown', 'sentWithoutCallback'],
      properties: {
        unknown: described(COUNT, 'UNKNOWN rows of the run.'),
        sentWithoutCallback: described(
          COUNT,
          'SENT rows claimed longer than STATUS_REFRESH_SENT_AFTER_MS ago (no delivery report since).',
        ),
      },
    },
    lastRefresh: orNull({
      type: 'object',
      description: "The run's latest refresh request.",
      required: ['requestedAt', 'finishedAt', 'settled', 'unresolved'],
      properties: {
        requestedAt: DATE_TIME,
        finishedAt: described(orNull(DATE_TIME), 'Null while the senders are still working on it.'),
        settled: SETTLED,
        unresolved: described(COUNT, 'Rows asked about that stayed as they were.'),
      },
    }),
  },
  example: {
    runId: '42',
    unsettled: { unknown: 3, sentWithoutCallback: 120 },
    lastRefresh: {
      requestedAt: '2026-11-24T10:00:00.000Z',
      finishedAt: '2026-11-24T10:00:04.512Z',
      settled: { sent: 1, delivered: 14, read: 2, failed: 1, notReceived: 5 },
      unresolved: 3,
    },
  },
});
