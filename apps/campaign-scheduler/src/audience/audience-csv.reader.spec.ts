import { AudienceEncoding, ENCODING_SAMPLE_BYTES } from '@ums/domain';
import { InvalidInputError } from '@ums/platform';
import { encode } from 'iconv-lite';
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

/** Cuts bytes into pieces of `size` (the last one shorter). */
function pieces(bytes: Buffer, size: number): Buffer[] {
  const out: Buffer[] = [];
  for (let at = 0; at < bytes.length; at += size) out.push(bytes.subarray(at, at + size));
  return out;
}

interface Outcome {
  readonly rows: [number, string[]][];
  readonly encoding?: AudienceEncoding;
  readonly error?: { code: string; message: string; details: unknown };
}

async function readBytes(parts: readonly Buffer[]): Promise<Outcome> {
  const rows: [number, string[]][] = [];
  try {
    const result = await readCsvRows(
      chunks(parts),
      { maxBytes: 100_000_000, signal: new AbortController().signal },
      (row: CsvRow) => {
        rows.push([row.line, row.cells]);
        return undefined;
      },
    );
    return { rows, encoding: result.encoding };
  } catch (error: unknown) {
    if (!(error instanceof InvalidInputError)) throw error;
    return { rows, error: { code: error.code, message: error.message, details: error.details } };
  }
}

describe('readCsvRows: encodings', () => {
  const text = 'phone,first_name,city\n+4915112345678,José,Köln\n+4915112345679,Zoë,Zürich\n';
  const rows: [number, string[]][] = [
    [1, ['phone', 'first_name', 'city']],
    [2, ['+4915112345678', 'José', 'Köln']],
    [3, ['+4915112345679', 'Zoë', 'Zürich']],
  ];

  it.each([
    ['UTF-8', Buffer.from(text), AudienceEncoding.Utf8],
    ['UTF-8 with a byte-order mark', Buffer.from(`\ufeff${text}`), AudienceEncoding.Utf8],
    [
      'UTF-16 LE with a byte-order mark',
      encode(text, 'utf-16le', { addBOM: true }),
      AudienceEncoding.Utf16Le,
    ],
    [
      'UTF-16 BE with a byte-order mark',
      encode(text, 'utf-16be', { addBOM: true }),
      AudienceEncoding.Utf16Be,
    ],
    ['ISO-8859-1', Buffer.from(text, 'latin1'), AudienceEncoding.Windows1252],
  ])('reads %s, however the chunks are cut', async (_label, bytes, encoding) => {
    for (const size of [bytes.length, 1, 2, 3, 7]) {
      await expect(readBytes(pieces(bytes, size))).resolves.toEqual({ rows, encoding });
    }
  });

  it('reads Windows-1252 punctuation as its characters', async () => {
    const bytes = encode('phone,note\n+4915112345678,“50 €” – it’s\n', 'windows-1252');
    await expect(readBytes([bytes])).resolves.toEqual({
      rows: [
        [1, ['phone', 'note']],
        [2, ['+4915112345678', '“50 €” – it’s']],
      ],
      encoding: AudienceEncoding.Windows1252,
    });
  });

  it('refuses a file it cannot read at the line at fault, after the lines before it', async () => {
    const cyrillic = encode('phone,name\n+79012345678,Иван Петров\n', 'windows-1251');
    for (const size of [cyrillic.length, 5, 1]) {
      const outcome = await readBytes(pieces(cyrillic, size));
      expect(outcome).toMatchObject({
        rows: [[1, ['phone', 'name']]],
        error: { code: 'AUDIENCE_ENCODING_INVALID', details: { line: 2 } },
      });
      expect(outcome.error?.message).toContain('The file cannot be read from line 2: byte 0xC8 is not UTF-8');
    }
    // UTF-16 without a byte-order mark: a NUL in the first line.
    await expect(readBytes([Buffer.from(text, 'utf16le')])).resolves.toMatchObject({
      rows: [],
      error: { code: 'AUDIENCE_ENCODING_INVALID', details: { line: 1 } },
    });
    await expect(readBytes([encode(text, 'utf-32le', { addBOM: true })])).resolves.toMatchObject({
      rows: [],
      error: { code: 'AUDIENCE_ENCODING_INVALID', details: { line: 1 } },
    });
  });

  it('hands over plain ASCII lines before the encoding is known (a source that pauses)', async () => {
    let release: () => void = () => undefined;
    const paused = new Promise<void>((resolve) => (release = resolve));
    async function* source(): AsyncGenerator<Buffer> {
      yield Buffer.from('phone,name\n+4915112345678,Ann\n+4915112345670,Bob\n');
      await paused;
      yield Buffer.from('+4915112345679,Zo\xeb\n', 'latin1');
    }
    const seen: string[] = [];
    const reading = readCsvRows(source(), { maxBytes: 1000, signal: new AbortController().signal }, (row) => {
      seen.push(row.cells[1] as string);
      return undefined;
    });
    await new Promise((resolve) => setTimeout(resolve, 20));
    // The parser may hold the last line back until it sees what follows it.
    expect(seen.slice(0, 2)).toEqual(['name', 'Ann']);
    release();
    await expect(reading).resolves.toEqual({ tooLarge: false, encoding: AudienceEncoding.Windows1252 });
    expect(seen).toEqual(['name', 'Ann', 'Bob', 'Zoë']);
  });

  // A file whose start is UTF-8 (the sample) with a Latin-1 byte further on.
  const longHead = (rowsBefore: number): string =>
    'phone,name\n' +
    Array.from({ length: rowsBefore }, (_, i) => `+49151${String(10_000_000 + i)},Jürgen\n`).join('');

  it('stops a UTF-8 file at a line that is not UTF-8, after handing over the lines before it', async () => {
    const rowsBefore = 3000;
    const head = Buffer.from(longHead(rowsBefore));
    expect(head.length).toBeGreaterThan(ENCODING_SAMPLE_BYTES);
    const bytes = Buffer.concat([
      head,
      Buffer.from('+4915100000001,Jos\xe9\n+4915100000002,after\n', 'latin1'),
    ]);
    for (const size of [65_536, 4096, 1000]) {
      const outcome = await readBytes(pieces(bytes, size));
      expect(outcome.rows).toHaveLength(rowsBefore + 1);
      expect(outcome.rows.at(-1)).toEqual([
        rowsBefore + 1,
        [`+49151${String(10_000_000 + rowsBefore - 1)}`, 'Jürgen'],
      ]);
      expect(outcome.error).toMatchObject({
        code: 'AUDIENCE_ENCODING_INVALID',
        details: { line: rowsBefore + 2 },
      });
      expect(outcome.error?.message).toContain(`line ${rowsBefore + 2}: byte 0xE9 is not UTF-8`);
    }
  });

  it('stops a Windows-1252 file at a byte that is no character there, after the lines before it', async () => {
    const rowsBefore = 3000;
    const head = Buffer.from(longHead(rowsBefore), 'latin1');
    const bytes = Buffer.concat([head, Buffer.from([0x2b, 0x31, 0x2c, 0x81, 0x0a])]);
    const outcome = await readBytes(pieces(bytes, 4096));
    expect(outcome.rows).toHaveLength(rowsBefore + 1);
    expect(outcome.rows[1]).toEqual([2, ['+4915110000000', 'Jürgen']]);
    expect(outcome.error).toMatchObject({
      code: 'AUDIENCE_ENCODING_INVALID',
      details: { line: rowsBefore + 2 },
    });
  });
});

describe('formatCsvRow', () => {
  it('quotes cells that need it', () => {
    expect(formatCsvRow(['+1', 'a, b', 'say "hi"', 'two\nlines', ''])).toBe(
      '+1,"a, b","say ""hi""","two\nlines",',
    );
  });
});
