import type {
  AudienceImportView,
  ImportSource,
  ImportState,
  ImportSummary,
  RejectView,
} from './audience-import.view';
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

const importProperties = {
  id: DECIMAL_ID,
  campaignId: STRING,
  source: unionValues<ImportSource>({
    csv: true,
    url: true,
    inline: true,
    request: true,
    list: true,
  }),
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

const IMPORT_EXAMPLE: AudienceImportView = {
  id: '17',
  campaignId: 'cmp_01JD6WB2E8T9P4R7Q0M3X5Z6N1',
  source: 'csv',
  state: 'COMPLETED',
  rowsRead: 1003,
  rowsAccepted: 1000,
  rowsRejected: 2,
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
  properties: {
    line: described(
      INTEGER,
      'Physical line of the file (1 = header), or the 1-based position in an inline list.',
    ),
    reason: STRING,
  },
};

export const AUDIENCE_IMPORT_VIEW = viewSchema<AudienceImportView>('AudienceImportView', {
  description: 'One audience import and its progress: counters grow as chunks land.',
  properties: importProperties,
  example: IMPORT_EXAMPLE,
});

export const IMPORT_SUMMARY = viewSchema<ImportSummary>('ImportSummary', {
  description:
    'An import with its first rejected lines (by line number); the rejects route pages through all.',
  properties: { ...importProperties, firstRejects: arrayOf(REJECT_LINE) },
  example: { ...IMPORT_EXAMPLE, firstRejects: [{ line: 12, reason: 'phone: not a valid number for DE' }] },
});

/** GET .../audience/imports. */
export interface AudienceImportList {
  readonly items: AudienceImportView[];
}

export const AUDIENCE_IMPORT_LIST = viewSchema<AudienceImportList>('AudienceImportList', {
  description: "A campaign's imports, newest first; pass the last id as `before` for the next page.",
  properties: { items: arrayOf(viewRef(AUDIENCE_IMPORT_VIEW)) },
  example: { items: [IMPORT_EXAMPLE] },
  uses: [AUDIENCE_IMPORT_VIEW],
});

/** GET .../audience/imports/:importId/rejects. */
export interface RejectPage {
  readonly items: RejectView[];
  readonly nextAfter: number | null;
}

export const REJECT_PAGE = viewSchema<RejectPage>('RejectPage', {
  description:
    'Rejected lines in line order; pass `nextAfter` as `after` for the next page (null: the last).',
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
    items: [{ line: 12, reason: 'phone: not a valid number for DE', raw: '0301234,Ada' }],
    nextAfter: null,
  },
});
