import { Readable, pipeline } from 'node:stream';
import { stringify } from 'csv-stringify';
import type { RunMessageView } from './message.view';

/** Column order of the export; the header row uses the same names as the JSON listing. */
export const RUN_MESSAGE_CSV_COLUMNS: readonly (keyof RunMessageView)[] = [
  'id',
  'recipient',
  'state',
  'attempts',
  'providerMessageId',
  'reason',
  'errorCode',
  'errorText',
  'sentAt',
  'deliveredAt',
  'readAt',
  'failedAt',
  'updatedAt',
];

// A cell starting with one of these is run as a formula by spreadsheet programs (OWASP "CSV injection").
const FORMULA_START = /^[=+\-@\t\r]/;
// A plain signed number (e.g. an E.164 phone number, +4915112345678) cannot call anything: left as is.
const PLAIN_NUMBER = /^[+-]?\d+(\.\d+)?$/;

/** Prefixes a cell that a spreadsheet would evaluate with a single quote, so it stays text. */
export function neutralizeFormula(value: string): string {
  return FORMULA_START.test(value) && !PLAIN_NUMBER.test(value) ? `'${value}` : value;
}

/**
 * The CSV of a run's messages, produced as it is read: `pages` is pulled only when the consumer
 * (the HTTP response) wants more, so memory stays flat however many rows there are. Fields with
 * separators, quotes or line breaks are quoted by csv-stringify. If reading fails part way the
 * stream is destroyed with the error, so the response is cut off rather than looking complete.
 */
export function runMessagesCsv(
  pages: AsyncIterable<readonly RunMessageView[]>,
  onError: (error: Error) => void,
): Readable {
  async function* rows(): AsyncGenerator<RunMessageView> {
    for await (const page of pages) yield* page;
  }
  const csv = stringify({
    header: true,
    columns: RUN_MESSAGE_CSV_COLUMNS.map((key) => ({ key, header: key })),
    cast: { string: neutralizeFormula },
  });
  return pipeline(Readable.from(rows()), csv, (error) => {
    if (error) onError(error);
  });
}
