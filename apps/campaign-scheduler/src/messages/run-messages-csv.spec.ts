import { parse } from 'csv-parse/sync';
import { MessageStatus } from '@ums/contracts';
import type { RunMessageView } from './message.view';
import { neutralizeFormula, RUN_MESSAGE_CSV_COLUMNS, runMessagesCsv } from './run-messages-csv';

const message = (id: number, overrides: Partial<RunMessageView> = {}): RunMessageView => ({
  id: String(id),
  recipient: `+1555000${String(id).padStart(4, '0')}`,
  state: MessageStatus.Delivered,
  attempts: 1,
  providerMessageId: `pm-${id}`,
  reason: null,
  errorCode: null,
  errorText: null,
  sentAt: '2030-01-01T00:00:00.000Z',
  deliveredAt: '2030-01-01T00:00:01.000Z',
  readAt: null,
  failedAt: null,
  updatedAt: '2030-01-01T00:00:01.000Z',
  ...overrides,
});

async function* pagesOf(...pages: RunMessageView[][]): AsyncGenerator<RunMessageView[]> {
  for (const page of pages) yield page;
}

async function collect(stream: NodeJS.ReadableStream): Promise<string> {
  let text = '';
  for await (const chunk of stream) text += String(chunk);
  return text;
}

describe('neutralizeFormula', () => {
  it.each(['=1+1', '=HYPERLINK("http://x")', '+1+cmd|/C calc!A0', '-2+3', '@SUM(A1)', '\tx', '\rx'])(
    'prefixes %j',
    (value) => {
      expect(neutralizeFormula(value)).toBe(`'${value}`);
    },
  );

  it.each(['hello', '', '+4915112345678', '-12', '-1.5', "it's", 'a=b'])('leaves %j as is', (value) => {
    expect(neutralizeFormula(value)).toBe(value);
  });
});

describe('runMessagesCsv', () => {
  it('writes a header and every row of every page, in order', async () => {
    const errors: Error[] = [];
    const text = await collect(
      runMessagesCsv(pagesOf([message(1), message(2)], [], [message(3)]), (e) => errors.push(e)),
    );
    const records = parse(text, { columns: true }) as Record<string, string>[];
    expect(Object.keys(records[0] ?? {})).toEqual(RUN_MESSAGE_CSV_COLUMNS);
    expect(records.map((r) => r['id'])).toEqual(['1', '2', '3']);
    expect(records[0]).toMatchObject({
      attempts: '1',
      readAt: '',
      state: 'DELIVERED',
      recipient: '+15550000001',
    });
    expect(errors).toEqual([]);
  });

  it('quotes separators, quotes and line breaks, and neutralizes formulas', async () => {
    const text = await collect(
      runMessagesCsv(
        pagesOf([
          message(1, {
            errorText: 'bad, "very" bad\nsecond line',
            providerMessageId: '=cmd()',
            reason: '@x',
          }),
        ]),
        () => undefined,
      ),
    );
    const [record] = parse(text, { columns: true }) as Record<string, string>[];
    expect(record).toMatchObject({
      errorText: 'bad, "very" bad\nsecond line',
      providerMessageId: "'=cmd()",
      reason: "'@x",
    });
  });

  it('writes only the header for an empty run', async () => {
    const text = await collect(runMessagesCsv(pagesOf(), () => undefined));
    expect(text).toBe(`${RUN_MESSAGE_CSV_COLUMNS.join(',')}\n`);
  });

  it('fails the stream (not a clean end) when reading fails part way', async () => {
    async function* failing(): AsyncGenerator<RunMessageView[]> {
      yield [message(1)];
      throw new Error('database went away');
    }
    const errors: Error[] = [];
    await expect(collect(runMessagesCsv(failing(), (e) => errors.push(e)))).rejects.toThrow(
      'database went away',
    );
    expect(errors.map((e) => e.message)).toEqual(['database went away']);
  });

  it('pulls pages only as the consumer reads', async () => {
    let pagesRead = 0;
    async function* endless(): AsyncGenerator<RunMessageView[]> {
      for (let page = 0; ; page++) {
        pagesRead++;
        yield Array.from({ length: 1000 }, (_, i) => message(page * 1000 + i + 1));
      }
    }
    const stream = runMessagesCsv(endless(), () => undefined);
    let bytes = 0;
    for await (const chunk of stream) {
      bytes += String(chunk).length;
      if (bytes > 100_000) break;
    }
    // About 100 kB were wanted (well under 10 pages of ~100 kB each); an eager producer would never stop.
    expect(pagesRead).toBeLessThan(10);
  });
});
