import type { TransformCallback } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { CsvError, Parser } from 'csv-parse';
import { InvalidInputError } from '@ums/platform';

/** One CSV record with the physical line (1-based) it starts on. */
export interface CsvRow {
  readonly cells: string[];
  readonly line: number;
}

export interface CsvReadOptions {
  /** Bytes of the file accepted; the rows that end within them are read, then reading stops. */
  readonly maxBytes: number;
  readonly signal: AbortSignal;
}

export interface CsvReadResult {
  /** The file was larger than maxBytes: only its first maxBytes (up to the last whole line) were read. */
  readonly tooLarge: boolean;
}

// A record longer than this is surely a quote that never closes; it fails the file instead of
// buffering the rest of it in memory.
const MAX_RECORD_CHARS = 1024 * 1024;
const NEWLINE = 0x0a;
const EMPTY = Buffer.alloc(0);

/** A parse failure, handed on in order after the records before it. */
interface CsvFailure {
  readonly failure: CsvError;
}

/**
 * csv-parse with the physical line each record starts on. Its own line counter is not used: its
 * `info` option builds a fifteen-field object per record (it tripled the parse time of a million
 * rows), and it counts a CRLF inside a quoted field as two lines. Instead a record starts on the line
 * after the previous record ended, plus the empty lines skipped in between (the parser's live
 * counter, read when the record is pushed, which happens synchronously while parsing), and spans one
 * line more for each LF inside its quoted fields.
 *
 * Records are passed on in batches, one per input chunk, so the consumer pays one stream read and
 * one await per batch rather than per record. A parse error is passed on as an item too, after the
 * batch before it, rather than destroying the stream: destroying would drop records already parsed
 * but not yet consumed, and the rows before a broken line count.
 */
class LineNumberedCsvParser extends Parser {
  private previousEndLine = 0;
  private previousEmptyLines = 0;
  private batch: CsvRow[] = [];
  private failed = false;

  constructor() {
    super({
      bom: true,
      relax_column_count: true,
      // A quote inside an unquoted field ("5" screen) is kept as a character rather than failing the file.
      relax_quotes: true,
      skip_empty_lines: true,
      max_record_size: MAX_RECORD_CHARS,
      // Batches waiting for the consumer: a couple are enough to keep it busy.
      readableHighWaterMark: 2,
    } as ConstructorParameters<typeof Parser>[0]);
  }

  override push(chunk: unknown, encoding?: BufferEncoding): boolean {
    if (chunk === null) {
      this.release();
      return super.push(null, encoding);
    }
    const cells = chunk as string[];
    const emptyLines = this.info.empty_lines;
    const line = this.previousEndLine + 1 + (emptyLines - this.previousEmptyLines);
    this.previousEndLine = line + countLineFeeds(cells);
    this.previousEmptyLines = emptyLines;
    this.batch.push({ cells, line });
    return true;
  }

  override _transform(chunk: Buffer, encoding: BufferEncoding, callback: TransformCallback): void {
    // After a failure csv-parse ignores its input without calling back; discard it here instead.
    if (this.failed) return callback();
    super._transform(chunk, encoding, (error) => this.settle(error, callback));
  }

  override _flush(callback: TransformCallback): void {
    if (this.failed) return callback();
    super._flush((error) => this.settle(error, callback));
  }

  private release(): void {
    if (this.batch.length === 0) return;
    const rows = this.batch;
    this.batch = [];
    super.push(rows);
  }

  private settle(error: Error | null | undefined, callback: TransformCallback): void {
    this.release();
    if (!(error instanceof CsvError)) return callback(error);
    this.failed = true;
    const failure: CsvFailure = { failure: error };
    super.push(failure);
    callback();
  }
}

/**
 * Passes the source on in whole lines, counting bytes: past maxBytes it passes the whole lines that
 * fit, records that the file was too large and stops (ending its read of the source, which destroys
 * it), so the rows before the limit are read and nothing cut in half is. A quoted field holding a
 * newline may still be cut; the parser then fails on the unclosed quote, which the caller ignores
 * for a file already too large.
 */
async function* wholeLinesWithin(
  source: AsyncIterable<Buffer | string>,
  maxBytes: number,
  state: { tooLarge: boolean },
): AsyncGenerator<Buffer> {
  let seen = 0;
  let carry: Buffer = EMPTY;
  for await (const piece of source) {
    const chunk = typeof piece === 'string' ? Buffer.from(piece) : piece;
    const room = maxBytes - seen;
    seen += chunk.length;
    const allowed = chunk.length > room ? chunk.subarray(0, room) : chunk;
    const buffer = carry.length === 0 ? allowed : Buffer.concat([carry, allowed]);
    const cut = buffer.lastIndexOf(NEWLINE);
    if (chunk.length > room) {
      state.tooLarge = true;
      if (cut !== -1) yield buffer.subarray(0, cut + 1);
      return;
    }
    // Without a newline for this long the parser fails anyway (record too large); let it say so.
    if (cut === -1 && buffer.length <= MAX_RECORD_CHARS) {
      carry = buffer;
      continue;
    }
    const end = cut === -1 ? buffer.length : cut + 1;
    yield buffer.subarray(0, end);
    carry = buffer.subarray(end);
  }
  if (carry.length > 0) yield carry;
}

/**
 * Streams a CSV file through the parser with backpressure, calling onRow for each record in order;
 * when onRow returns a promise, reading waits for it. Memory stays flat whatever the file size.
 * A malformed file (a quote never closed, a record over 1 MiB) fails with AUDIENCE_CSV_MALFORMED
 * after the rows before it were handed over.
 */
export async function readCsvRows(
  source: AsyncIterable<Buffer | string>,
  options: CsvReadOptions,
  onRow: (row: CsvRow) => Promise<void> | undefined,
): Promise<CsvReadResult> {
  const state = { tooLarge: false };
  try {
    await pipeline(
      wholeLinesWithin(source, options.maxBytes, state),
      new LineNumberedCsvParser(),
      async (items: AsyncIterable<CsvRow[] | CsvFailure>) => {
        for await (const item of items) {
          if (!Array.isArray(item)) throw item.failure;
          for (const row of item) {
            const pending = onRow(row);
            if (pending !== undefined) await pending;
          }
        }
      },
      { signal: options.signal },
    );
  } catch (error: unknown) {
    if (!(error instanceof CsvError)) throw error;
    if (!state.tooLarge) {
      throw InvalidInputError.field('AUDIENCE_CSV_MALFORMED', 'file', `malformed CSV: ${error.message}`);
    }
  }
  return state;
}

function countLineFeeds(cells: readonly string[]): number {
  let count = 0;
  for (const cell of cells) {
    for (let at = cell.indexOf('\n'); at !== -1; at = cell.indexOf('\n', at + 1)) count++;
  }
  return count;
}

const NEEDS_QUOTES = /[",\r\n]/;

/** A row written back as one CSV line, for the rejects report. */
export function formatCsvRow(cells: readonly string[]): string {
  return cells.map((cell) => (NEEDS_QUOTES.test(cell) ? `"${cell.replace(/"/g, '""')}"` : cell)).join(',');
}
