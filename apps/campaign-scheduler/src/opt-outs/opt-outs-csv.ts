import { pipeline, Readable } from 'node:stream';
import type { OptOutView } from '@ums/contracts';
import { stringify } from 'csv-stringify';
import { neutralizeFormula } from '../messages/run-messages-csv';

/** Column order of the export; an import reads the same file back (it ignores createdAt). */
export const OPT_OUT_CSV_COLUMNS: readonly (keyof OptOutView)[] = [
  'channel',
  'address',
  'source',
  'createdAt',
];

/**
 * The CSV of a tenant's opt-outs, produced as it is read: `pages` is pulled only when the response
 * wants more, so memory stays flat. Cells a spreadsheet would run as formulas get a leading quote
 * (the import takes it off again). A read that fails part way destroys the stream, cutting the
 * response off rather than letting it look complete.
 */
export function optOutsCsv(
  pages: AsyncIterable<readonly OptOutView[]>,
  onError: (error: Error) => void,
): Readable {
  async function* rows(): AsyncGenerator<OptOutView> {
    for await (const page of pages) yield* page;
  }
  const csv = stringify({
    header: true,
    columns: OPT_OUT_CSV_COLUMNS.map((key) => ({ key, header: key })),
    cast: { string: neutralizeFormula },
  });
  return pipeline(Readable.from(rows()), csv, (error) => {
    if (error) onError(error);
  });
}
