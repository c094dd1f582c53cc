import { Channel } from '../enums/channel.enum';
import type { ImportState } from './audience-import.view';
import type {
  ContactListImportSource,
  ContactListImportSummary,
  ContactListImportView,
  ContactListMemberPage,
  ContactListMemberView,
  ContactListPage,
  ContactListRejectPage,
  ContactListView,
} from './contact-list.view';
import {
  arrayOf,
  DATE_TIME,
  DECIMAL_ID,
  described,
  INTEGER,
  oneOfValues,
  orNull,
  STRING,
  unionValues,
  viewRef,
  viewSchema,
} from './view-schema';

const LIST_EXAMPLE: ContactListView = {
  id: 'lst_01JD6WB2E8T9P4R7Q0M3X5Z6N1',
  name: 'Newsletter DE',
  channel: Channel.Sms,
  defaultCountry: 'DE',
  memberCount: 1000,
  createdAt: '2026-11-24T10:00:00.000Z',
  updatedAt: '2026-11-24T10:01:02.000Z',
};

export const CONTACT_LIST_VIEW = viewSchema<ContactListView>('ContactListView', {
  description:
    "A tenant's reusable contact list: members imported once, used as the audience of any number of campaigns on its channel.",
  properties: {
    id: STRING,
    name: STRING,
    channel: oneOfValues(Object.values(Channel)),
    defaultCountry: described(
      orNull(STRING),
      'ISO 3166-1 alpha-2 country of phone numbers written without a country code.',
    ),
    memberCount: described(INTEGER, 'Members stored (recounted when an import finishes).'),
    createdAt: DATE_TIME,
    updatedAt: DATE_TIME,
  },
  example: LIST_EXAMPLE,
});

export const CONTACT_LIST_PAGE = viewSchema<ContactListPage>('ContactListPage', {
  description: "The tenant's contact lists, newest first; pass `nextBefore` as `before` for the next page.",
  properties: { items: arrayOf(viewRef(CONTACT_LIST_VIEW)), nextBefore: orNull(STRING) },
  example: { items: [LIST_EXAMPLE], nextBefore: null },
  uses: [CONTACT_LIST_VIEW],
});

const importProperties = {
  id: DECIMAL_ID,
  listId: STRING,
  source: unionValues<ContactListImportSource>({ csv: true, url: true }),
  state: unionValues<ImportState>({ PENDING: true, RUNNING: true, COMPLETED: true, FAILED: true }),
  rowsRead: described(INTEGER, 'Data rows read so far = rowsAccepted + rowsRejected + rowsDuplicate.'),
  rowsAccepted: INTEGER,
  rowsRejected: INTEGER,
  rowsDuplicate: INTEGER,
  error: orNull(STRING),
  startedAt: orNull(DATE_TIME),
  finishedAt: orNull(DATE_TIME),
  createdAt: DATE_TIME,
  updatedAt: DATE_TIME,
};

const IMPORT_EXAMPLE: ContactListImportView = {
  id: '5',
  listId: LIST_EXAMPLE.id,
  source: 'csv',
  state: 'COMPLETED',
  rowsRead: 1002,
  rowsAccepted: 1000,
  rowsRejected: 1,
  rowsDuplicate: 1,
  error: null,
  startedAt: '2026-11-24T10:01:00.000Z',
  finishedAt: '2026-11-24T10:01:02.000Z',
  createdAt: '2026-11-24T10:01:00.000Z',
  updatedAt: '2026-11-24T10:01:02.000Z',
};

const REJECT_LINE = {
  type: 'object',
  required: ['line', 'reason'],
  properties: { line: described(INTEGER, 'Physical line of the file (1 = header).'), reason: STRING },
};

export const CONTACT_LIST_IMPORT_SUMMARY = viewSchema<ContactListImportSummary>('ContactListImportSummary', {
  description:
    'An import into a contact list with its first rejected lines (by line number); the rejects route pages through all.',
  properties: { ...importProperties, firstRejects: arrayOf(REJECT_LINE) },
  example: { ...IMPORT_EXAMPLE, firstRejects: [{ line: 12, reason: 'phone number is too short for DE' }] },
});

export const CONTACT_LIST_REJECT_PAGE = viewSchema<ContactListRejectPage>('ContactListRejectPage', {
  description:
    'Rejected lines of a list import in line order; pass `nextAfter` as `after` for the next page (null: the last).',
  properties: {
    items: arrayOf({
      ...REJECT_LINE,
      required: ['line', 'reason', 'raw'],
      properties: {
        ...REJECT_LINE.properties,
        raw: described(orNull(STRING), 'The rejected input as read, at most 1024 characters.'),
      },
    }),
    nextAfter: orNull(INTEGER),
  },
  example: {
    items: [{ line: 12, reason: 'phone number is too short for DE', raw: '0301234,Berlin' }],
    nextAfter: null,
  },
});

const MEMBER_EXAMPLE: ContactListMemberView = {
  id: '981',
  address: '+4915112345678',
  variables: { name: 'Ada', city: 'Berlin' },
  line: 2,
};

export const CONTACT_LIST_MEMBER_PAGE = viewSchema<ContactListMemberPage>('ContactListMemberPage', {
  description: "A keyset page of a list's members in id order; pass `nextAfter` as `after` (null: the last).",
  properties: {
    items: arrayOf({
      type: 'object',
      required: ['id', 'address', 'variables', 'line'],
      properties: {
        id: DECIMAL_ID,
        address: STRING,
        variables: orNull({ type: 'object', additionalProperties: STRING }),
        line: orNull(INTEGER),
      },
    }),
    nextAfter: orNull(DECIMAL_ID),
  },
  example: { items: [MEMBER_EXAMPLE], nextAfter: null },
});
