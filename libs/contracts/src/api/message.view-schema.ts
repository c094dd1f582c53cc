import { Channel } from '../enums/channel.enum';
import { MessageStatus } from '../enums/message-status.enum';
import type { MessageView, RunMessagePage, RunMessageView } from './message.view';
import {
  arrayOf,
  BOOLEAN,
  DATE_TIME,
  DECIMAL_ID,
  INTEGER,
  oneOfValues,
  orNull,
  STRING,
  viewRef,
  viewSchema,
} from './view-schema';

const runMessageProperties = {
  id: DECIMAL_ID,
  recipient: STRING,
  state: oneOfValues(Object.values(MessageStatus)),
  attempts: INTEGER,
  providerMessageId: orNull(STRING),
  reason: orNull(STRING),
  errorCode: orNull(STRING),
  errorText: orNull(STRING),
  sentAt: orNull(DATE_TIME),
  deliveredAt: orNull(DATE_TIME),
  readAt: orNull(DATE_TIME),
  failedAt: orNull(DATE_TIME),
  updatedAt: DATE_TIME,
};

const RUN_MESSAGE_EXAMPLE: RunMessageView = {
  id: '900123',
  recipient: '+4915112345678',
  state: MessageStatus.Delivered,
  attempts: 1,
  providerMessageId: 'SM0123456789abcdef0123456789abcdef',
  reason: null,
  errorCode: null,
  errorText: null,
  sentAt: '2026-12-01T08:00:05.000Z',
  deliveredAt: '2026-12-01T08:00:07.000Z',
  readAt: null,
  failedAt: null,
  updatedAt: '2026-12-01T08:00:07.000Z',
};

export const RUN_MESSAGE_VIEW = viewSchema<RunMessageView>('RunMessageView', {
  description: 'One message of a run.',
  properties: runMessageProperties,
  example: RUN_MESSAGE_EXAMPLE,
});

export const RUN_MESSAGE_PAGE = viewSchema<RunMessagePage>('RunMessagePage', {
  description:
    "A page of a run's messages by id; pass `nextAfter` as `after` for the next one (null: the last).",
  properties: { items: arrayOf(viewRef(RUN_MESSAGE_VIEW)), nextAfter: orNull(DECIMAL_ID) },
  example: { items: [RUN_MESSAGE_EXAMPLE], nextAfter: null },
  uses: [RUN_MESSAGE_VIEW],
});

export const MESSAGE_VIEW = viewSchema<MessageView>('MessageView', {
  description: 'One message (of a run, or a single send) with where it came from.',
  properties: {
    ...runMessageProperties,
    tenantId: STRING,
    campaignId: STRING,
    runId: orNull(DECIMAL_ID),
    channel: oneOfValues(Object.values(Channel)),
    credentialId: STRING,
    lane: STRING,
    idempotencyKey: orNull(STRING),
    createdAt: DATE_TIME,
    archived: BOOLEAN,
  },
  example: {
    ...RUN_MESSAGE_EXAMPLE,
    tenantId: 'acme',
    campaignId: 'cmp_01JD6WB2E8T9P4R7Q0M3X5Z6N1',
    runId: '81',
    channel: Channel.Sms,
    credentialId: 'cred_01JD6W9X3R5T8Y1B4N7C0XKZ2B',
    lane: 'bulk',
    idempotencyKey: null,
    createdAt: '2026-12-01T08:00:04.000Z',
    archived: false,
  },
});
