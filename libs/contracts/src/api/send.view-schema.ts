import { MessageStatus } from '../enums/message-status.enum';
import type { BulkSendView, MessageSendView } from './send.view';
import { DECIMAL_ID, described, oneOfValues, STRING, viewSchema } from './view-schema';

export const MESSAGE_SEND_VIEW = viewSchema<MessageSendView>('MessageSendView', {
  description:
    'A single send, stored and published on the priority lane (or skipped: the recipient opted out).',
  properties: {
    requestId: described(STRING, 'The Idempotency-Key when the request named one, else a new id.'),
    messageId: DECIMAL_ID,
    status: oneOfValues(Object.values(MessageStatus)),
  },
  example: { requestId: 'order-4711-shipped', messageId: '900124', status: MessageStatus.Pending },
});

export const BULK_SEND_VIEW = viewSchema<BulkSendView>('BulkSendView', {
  description: 'A bulk send: its campaign, created with its audience and started (now or at sendAt).',
  properties: {
    requestId: described(STRING, 'The Idempotency-Key when the request named one, else a new id.'),
    campaignId: STRING,
    runId: described(DECIMAL_ID, "The campaign's run; absent when the campaign has none."),
    audienceImportId: described(
      DECIMAL_ID,
      'The import of the recipients (a URL import runs in the background).',
    ),
  },
  optional: ['runId', 'audienceImportId'],
  example: {
    requestId: 'december-promo',
    campaignId: 'cmp_01JD6WB2E8T9P4R7Q0M3X5Z6N1',
    runId: '81',
    audienceImportId: '17',
  },
});
