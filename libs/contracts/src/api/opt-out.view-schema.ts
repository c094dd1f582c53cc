import { Channel } from '../enums/channel.enum';
import type { OptOutImportSummary, OptOutPage, OptOutView } from './opt-out.view';
import {
  arrayOf,
  DATE_TIME,
  described,
  INTEGER,
  oneOfValues,
  orNull,
  STRING,
  viewRef,
  viewSchema,
} from './view-schema';

const OPT_OUT_EXAMPLE: OptOutView = {
  tenantId: 'acme',
  channel: Channel.Sms,
  address: '+4915112345678',
  source: 'inbound:twilio',
  createdAt: '2026-11-24T10:00:00.000Z',
};

export const OPT_OUT_VIEW = viewSchema<OptOutView>('OptOutView', {
  description: 'One opt-out: sends of the tenant on this channel to this address are skipped.',
  properties: {
    tenantId: STRING,
    channel: oneOfValues(Object.values(Channel)),
    address: described(
      STRING,
      'As contacts are stored: E.164 for phones, the e-mail with its domain lower-cased.',
    ),
    source: described(
      STRING,
      "Who recorded it: `api`, `import` (or the file's own source column), `inbound:<provider>` for a STOP reply.",
    ),
    createdAt: DATE_TIME,
  },
  example: OPT_OUT_EXAMPLE,
});

export const OPT_OUT_PAGE = viewSchema<OptOutPage>('OptOutPage', {
  description: "A keyset page of the tenant's opt-outs in (channel, address) order.",
  properties: {
    items: arrayOf(viewRef(OPT_OUT_VIEW)),
    nextAfter: described(
      orNull(STRING),
      'Pass as `after` for the next page (`<channel>:<address>`); null on the last.',
    ),
  },
  example: { items: [OPT_OUT_EXAMPLE], nextAfter: null },
  uses: [OPT_OUT_VIEW],
});

export const OPT_OUT_IMPORT_SUMMARY = viewSchema<OptOutImportSummary>('OptOutImportSummary', {
  description:
    'What a CSV import of opt-outs did: rowsRead = rowsAdded + rowsDuplicate + rowsRejected (blank lines not counted).',
  properties: {
    rowsRead: INTEGER,
    rowsAdded: INTEGER,
    rowsDuplicate: described(
      INTEGER,
      'Rows already opted out (or repeated in the file): kept as first recorded.',
    ),
    rowsRejected: INTEGER,
    rejects: arrayOf({
      type: 'object',
      required: ['line', 'reason', 'raw'],
      properties: {
        line: described(INTEGER, 'Physical line of the file (1 = the header).'),
        reason: STRING,
        raw: described(STRING, 'The rejected row re-encoded as CSV, at most 1024 characters.'),
      },
    }),
    rejectsOmitted: described(INTEGER, 'Rejected rows past the first 1000 listed in `rejects`.'),
  },
  example: {
    rowsRead: 3,
    rowsAdded: 1,
    rowsDuplicate: 1,
    rowsRejected: 1,
    rejects: [{ line: 4, reason: 'phone number contains letters', raw: 'sms,call me' }],
    rejectsOmitted: 0,
  },
});
