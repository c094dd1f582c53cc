import { MessageStatus } from '../enums/message-status.enum';
import type { TestSendPage, TestSendRecipientView, TestSendView } from './test-send.view';
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

const RECIPIENT_EXAMPLE: TestSendRecipientView = {
  position: 0,
  recipient: '+4915112345678',
  messageId: '900125',
  state: MessageStatus.Sent,
  errorCode: null,
  errorText: null,
  sentAt: '2026-12-01T08:00:05.000Z',
  deliveredAt: null,
  readAt: null,
  failedAt: null,
  updatedAt: '2026-12-01T08:00:05.000Z',
};

export const TEST_SEND_RECIPIENT_VIEW = viewSchema<TestSendRecipientView>('TestSendRecipientView', {
  description: 'One recipient of a test send and its message, in its current state.',
  properties: {
    position: described(INTEGER, "The recipient's index in the request."),
    recipient: STRING,
    messageId: DECIMAL_ID,
    state: oneOfValues(Object.values(MessageStatus)),
    errorCode: orNull(STRING),
    errorText: orNull(STRING),
    sentAt: orNull(DATE_TIME),
    deliveredAt: orNull(DATE_TIME),
    readAt: orNull(DATE_TIME),
    failedAt: orNull(DATE_TIME),
    updatedAt: DATE_TIME,
  },
  example: RECIPIENT_EXAMPLE,
});

const TEST_SEND_EXAMPLE: TestSendView = {
  id: '42',
  campaignId: 'cmp_01JD6WB2E8T9P4R7Q0M3X5Z6N1',
  actor: 'key_01JD6W9X3R5T8Y1B4N7C0XKZ2B',
  requestId: 'december-promo-test-1',
  createdAt: '2026-12-01T08:00:04.000Z',
  recipients: [RECIPIENT_EXAMPLE],
};

export const TEST_SEND_VIEW = viewSchema<TestSendView>('TestSendView', {
  description:
    "A test send: the campaign's content sent to a few given recipients on the priority lane, with each one's result.",
  properties: {
    id: DECIMAL_ID,
    campaignId: STRING,
    actor: described(STRING, "Who made it: the caller's principal."),
    requestId: described(orNull(STRING), 'The Idempotency-Key the request named, or null.'),
    createdAt: DATE_TIME,
    recipients: arrayOf(viewRef(TEST_SEND_RECIPIENT_VIEW)),
  },
  example: TEST_SEND_EXAMPLE,
  uses: [TEST_SEND_RECIPIENT_VIEW],
});

export const TEST_SEND_PAGE = viewSchema<TestSendPage>('TestSendPage', {
  description:
    "A page of a campaign's test sends, newest first; pass `nextAfter` as `after` for the next one.",
  properties: { items: arrayOf(viewRef(TEST_SEND_VIEW)), nextAfter: orNull(DECIMAL_ID) },
  example: { items: [TEST_SEND_EXAMPLE], nextAfter: null },
  uses: [TEST_SEND_VIEW],
});
