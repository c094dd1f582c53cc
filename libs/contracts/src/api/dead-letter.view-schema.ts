import type { DeadLetterPage, DeadLetterReplayResult, DeadLetterView } from './dead-letter.view';
import {
  arrayOf,
  DATE_TIME,
  DECIMAL_ID,
  described,
  INTEGER,
  orNull,
  STRING,
  unionValues,
  viewRef,
  viewSchema,
} from './view-schema';

const DEAD_LETTER_EXAMPLE: DeadLetterView = {
  id: '311',
  tenantId: 'acme',
  consumerGroup: 'campaign-scheduler.send-requests',
  sourceTopic: 'ums.send-requests.v1',
  sourcePartition: 3,
  sourceOffset: '18234',
  replayTo: 'ums.send-requests.v1',
  key: 'acme',
  value: '{"kind":"single","tenantId":"acme"}',
  valueEncoding: 'utf8',
  headers: { 'ums-tenant': 'acme' },
  errorCode: 'VALIDATION_FAILED',
  reason: 'recipient: recipient should not be empty',
  attempts: 1,
  failedAt: '2026-11-24T10:00:00.000Z',
  replays: 0,
  replayedAt: null,
  createdAt: '2026-11-24T10:00:01.000Z',
};

export const DEAD_LETTER_VIEW = viewSchema<DeadLetterView>('DeadLetterView', {
  description: 'A stored dead letter: a Kafka message the platform gave up on, and why.',
  properties: {
    id: DECIMAL_ID,
    tenantId: orNull(STRING),
    consumerGroup: STRING,
    sourceTopic: described(STRING, 'As consumed (with the namespace prefix, if one is set).'),
    sourcePartition: INTEGER,
    sourceOffset: DECIMAL_ID,
    replayTo: orNull(STRING),
    key: orNull(STRING),
    value: described(
      orNull(STRING),
      'utf8 text, or base64 when the bytes were not valid UTF-8 (`valueEncoding`).',
    ),
    valueEncoding: unionValues<DeadLetterView['valueEncoding']>({ utf8: true, base64: true }),
    headers: { type: 'object', additionalProperties: STRING },
    errorCode: STRING,
    reason: STRING,
    attempts: INTEGER,
    failedAt: orNull(DATE_TIME),
    replays: INTEGER,
    replayedAt: orNull(DATE_TIME),
    createdAt: DATE_TIME,
  },
  example: DEAD_LETTER_EXAMPLE,
});

export const DEAD_LETTER_PAGE = viewSchema<DeadLetterPage>('DeadLetterPage', {
  description:
    'Dead letters, newest first; pass `nextBefore` as `before` for the next page (null: the last).',
  properties: { items: arrayOf(viewRef(DEAD_LETTER_VIEW)), nextBefore: orNull(DECIMAL_ID) },
  example: { items: [DEAD_LETTER_EXAMPLE], nextBefore: null },
  uses: [DEAD_LETTER_VIEW],
});

export const DEAD_LETTER_REPLAY_RESULT = viewSchema<DeadLetterReplayResult>('DeadLetterReplayResult', {
  description:
    'Entries published again to their topic, and those that cannot be replayed (left as they are).',
  properties: {
    replayed: arrayOf(DECIMAL_ID),
    refused: arrayOf({
      type: 'object',
      required: ['id', 'reason'],
      properties: { id: DECIMAL_ID, reason: STRING },
    }),
  },
  example: { replayed: ['311', '312'], refused: [{ id: '313', reason: 'no topic to replay to' }] },
});
