import { InvalidInputError } from '@ums/platform';
import { type CsvRow, formatCsvRow, readCsvRows } from './audience-csv.reader';

async function* chunks(parts: readonly (string | Buffer)[]): AsyncGenerator<Buffer> {
  for (const part of parts) yield typeof part === 'string' ? Buffer.from(part) : part;
}

/** Every way of cutting the text into two pieces, so no result depends on where chunks end. */
function splits(text: string): string[][] {
  const bytes = Buffer.from(text);
  const out: string[][] = [[text]];
  for (let i = 1; i < bytes.length; i++) {
    out.push([bytes.subarray(0, i).toString('latin1'), bytes.subarray(i).toString('latin1')]);
  }
  return out;
}

async function read(
  parts: readonly (string | Buffer)[],
  maxBytes = 1_000_000,
): Promise<{ rows: [number, string[]][]; tooLarge: boolean }> {
  const rows: [number, string[]][] = [];
  const result = await readCsvRows(
    chunks(parts),
    { maxBytes, signal: new AbortController().signal },
    (row: CsvRow) => {
      rows.push([row.line, row.cells]);
      return undefined;
    },
  );
  return { rows, tooLarge: result.tooLarge };
}

describe('readCsvRows', () => {
  it('numbers records by the physical line they start on (BOM, CRLF, blank lines, quoted newlines)', async () => {
    const text =
      '\ufeffphone,name\r\n' +
      '\r\n' +
      '+1,"a, b"\r\n' +
      '+2,"multi\r\nline\nname"\r\n' +
      '\r\n' +
      '\r\n' +
      '+3,"say ""hi"""\r\n' +
      '   \r\n' +
      '+4,5" screen\r\n' +
      '+5,last';
    const expected: [number, string[]][] = [
      [1, ['phone', 'name']],
      [3, ['+1', 'a, b']],
      [4, ['+2', 'multi\r\nline\nname']],
      [9, ['+3', 'say "hi"']],
      [10, ['   ']],
      [11, ['+4', '5" screen']],
      [12, ['+5', 'last']],
    ];
    for (const parts of [[text], ...splits(text).filter((_, i) => i % 7 === 0)]) {
      const bytes = parts.map((part) => Buffer.from(part, parts.length === 1 ? 'utf8' : 'latin1'));
      await expect(read(bytes)).resolves.toEqual({ rows: expected, tooLarge: false });
    }
  });

  it('counts lines in a file mixing LF and CRLF endings', async () => {
    await expect(read(['a\n"x\r\ny"\nb\r\n\nc\n'])).resolves.toEqual({
      rows: [
        [1, ['a']],
        [2, ['x\r\ny']],
        [4, ['b\r']],
        [6, ['c']],
      ],
      tooLarge: false,
    });
  });

  it('keeps rows of different lengths (the caller rejects them)', async () => {
    await expect(read(['a,b\n1\n1,2,3\n'])).resolves.toEqual({
      rows: [
        [1, ['a', 'b']],
        [2, ['1']],
        [3, ['1', '2', '3']],
      ],
      tooLarge: false,
    });
  });

  it('reads the whole lines within maxBytes and reports the file as too large', async () => {
    const text = 'phone\n+111\n+222\n+333\n'; // lines end at bytes 6, 11, 16, 21
    for (const parts of splits(text)) {
      await expect(read(parts, 15)).resolves.toEqual({
        rows: [
          [1, ['phone']],
          [2, ['+111']],
        ],
        tooLarge: true,
      });
      await expect(read(parts, 16)).resolves.toMatchObject({ rows: { length: 3 }, tooLarge: true });
      await expect(read(parts, 21)).resolves.toMatchObject({ rows: { length: 4 }, tooLarge: false });
    }
  });

  it('does not fail a too-large file whose cut falls inside a quoted field', async () => {
    await expect(read(['h\n"a\nb"\nc\n'], 5)).resolves.toEqual({ rows: [[1, ['h']]], tooLarge: true });
  });

  it('fails a quote that never closes, after handing over the rows before it', async () => {
    const rows: number[] = [];
    const reading = readCsvRows(
      chunks(['phone\n+1\n+2\n"+3\n+4\n']),
      { maxBytes: 1000, signal: new AbortController().signal },
      (row) => {
        rows.push(row.line);
        return undefined;
      },
    );
    await expect(reading).rejects.toThrow(InvalidInputError);
    await expect(reading).rejects.toMatchObject({ code: 'AUDIENCE_CSV_MALFORMED' });
    expect(rows).toEqual([1, 2, 3]);
  });

  it('waits for the promise a row returns before reading on', async () => {
    const seen: string[] = [];
    let release: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const reading = readCsvRows(
      chunks(['a\n1\n2\n3\n']),
      { maxBytes: 1000, signal: new AbortController().signal },
      (row) => {
        seen.push(row.cells[0] as string);
        return row.line === 2 ? gate : undefined;
      },
    );
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(seen).toEqual(['a', '1']);
    release();
    await reading;
    expect(seen).toEqual(['a', '1', '2', '3']);
  });
});

describe('formatCsvRow', () => {
  it('quotes cells that need it', () => {
    expect(formatCsvRow(['+1', 'a, b', 'say "hi"', 'two\nlines', ''])).toBe(
      '+1,"a, b","say ""hi""","two\nlines",',
    );
  });
});
