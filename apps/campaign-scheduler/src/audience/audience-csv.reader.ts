import { isUtf8 } from 'node:buffer';
import type { TransformCallback } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { CsvError, Parser } from 'csv-parse';
import { getDecoder } from 'iconv-lite';
import {
  AudienceEncoding,
  detectAudienceEncoding,
  ENCODING_SAMPLE_BYTES,
  invalidUtf8Offset,
  undefinedWindows1252Offset,
  utf8Refusal,
  windows1252Refusal,
} from '@ums/domain';
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
  /** The encoding the file was read in (transcoded to UTF-8 unless it was UTF-8). */
  readonly encoding: AudienceEncoding | undefined;
}

/** What the stages of a read found out, read once the rows before it were handed over. */
interface ReadState {
  tooLarge: boolean;
  encoding: AudienceEncoding | undefined;
  /** The file cannot be read from this line on (or at all, when found at its start). */
  unreadable: { readonly line: number; readonly reason: string } | undefined;
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
  source: AsyncIterable<Buffer>,
  maxBytes: number,
  state: ReadState,
): AsyncGenerator<Buffer> {
  let seen = 0;
  let carry: Buffer = EMPTY;
  for await (const chunk of source) {
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

function toBuffer(piece: Buffer | string): Buffer {
  return typeof piece === 'string' ? Buffer.from(piece) : piece;
}

function countLineFeedBytes(bytes: Buffer, end = bytes.length): number {
  let count = 0;
  for (let at = bytes.indexOf(NEWLINE); at !== -1 && at < end; at = bytes.indexOf(NEWLINE, at + 1)) count++;
  return count;
}

/** The chunks an iterator has left; ending early ends the iterator (and its source) too. */
async function* remaining(iterator: AsyncIterator<Buffer | string>): AsyncGenerator<Buffer> {
  try {
    for (let next = await iterator.next(); next.done !== true; next = await iterator.next()) {
      yield toBuffer(next.value);
    }
  } finally {
    await iterator.return?.();
  }
}

/**
 * Detects the file's encoding on its first ENCODING_SAMPLE_BYTES (detectAudienceEncoding in
 * @ums/domain) and passes the file on as UTF-8, still streaming: UTF-8 as it is (its byte-order
 * mark dropped), UTF-16 and Windows-1252 transcoded with iconv-lite. A file that cannot be read is
 * recorded in state.unreadable and nothing is passed on; in Windows-1252, a byte that is no
 * character there ends the file at the start of its line, also recorded.
 */
async function* asUtf8(source: AsyncIterable<Buffer | string>, state: ReadState): AsyncGenerator<Buffer> {
  const iterator = source[Symbol.asyncIterator]();
  const head: Buffer[] = [];
  let sampled = 0;
  let ended = false;
  while (sampled < ENCODING_SAMPLE_BYTES) {
    const next = await iterator.next();
    if (next.done === true) {
      ended = true;
      break;
    }
    const chunk = toBuffer(next.value);
    head.push(chunk);
    sampled += chunk.length;
  }
  const sample = Buffer.concat(head);
  const verdict = detectAudienceEncoding(sample, ended);
  if (!verdict.ok) {
    state.unreadable = { line: verdict.line, reason: verdict.reason };
    await iterator.return?.();
    return;
  }
  state.encoding = verdict.encoding;
  const rest = remaining(iterator);
  const first = sample.subarray(verdict.bomLength);
  if (verdict.encoding === AudienceEncoding.Utf8) {
    if (first.length > 0) yield first;
    yield* rest;
  } else if (verdict.encoding === AudienceEncoding.Windows1252) {
    yield* fromWindows1252(first, rest, state);
  } else {
    const decoder = getDecoder(verdict.encoding);
    yield Buffer.from(decoder.write(first), 'utf8');
    for await (const chunk of rest) yield Buffer.from(decoder.write(chunk), 'utf8');
    const tail = decoder.end();
    if (tail !== undefined && tail !== '') yield Buffer.from(tail, 'utf8');
  }
}

async function* fromWindows1252(
  first: Buffer,
  rest: AsyncIterable<Buffer>,
  state: ReadState,
): AsyncGenerator<Buffer> {
  const decoder = getDecoder(AudienceEncoding.Windows1252);
  let line = 1;
  async function* all(): AsyncGenerator<Buffer> {
    yield first;
    yield* rest;
  }
  for await (const chunk of all()) {
    const undefinedByte = undefinedWindows1252Offset(chunk);
    if (undefinedByte !== -1) {
      const lineStart = chunk.lastIndexOf(NEWLINE, undefinedByte) + 1;
      yield Buffer.from(decoder.write(chunk.subarray(0, lineStart)), 'utf8');
      state.unreadable = {
        line: line + countLineFeedBytes(chunk, undefinedByte),
        reason: windows1252Refusal(chunk[undefinedByte]),
      };
      return;
    }
    line += countLineFeedBytes(chunk);
    yield Buffer.from(decoder.write(chunk), 'utf8');
  }
}

/**
 * Passes whole lines of a file read as UTF-8 on while they are valid UTF-8 (a byte that is not ends
 * the file at the start of its line, recorded in state.unreadable), rather than letting the parser
 * turn it into U+FFFD. Transcoded files are valid by construction and pass straight through.
 */
async function* validUtf8Lines(lines: AsyncIterable<Buffer>, state: ReadState): AsyncGenerator<Buffer> {
  let line = 1;
  for await (const buffer of lines) {
    if (state.encoding === AudienceEncoding.Utf8 && !isUtf8(buffer)) {
      // A sequence cut by the end of the buffer (a line over MAX_RECORD_CHARS) is left to the parser.
      const offset = invalidUtf8Offset(buffer, true);
      if (offset !== -1) {
        const lineStart = buffer.lastIndexOf(NEWLINE, offset) + 1;
        if (lineStart > 0) yield buffer.subarray(0, lineStart);
        state.unreadable = {
          line: line + countLineFeedBytes(buffer, offset),
          reason: utf8Refusal(buffer[offset]),
        };
        return;
      }
    }
    if (state.encoding === AudienceEncoding.Utf8) line += countLineFeedBytes(buffer);
    yield buffer;
  }
}

/**
 * Streams a CSV file through the parser with backpressure, calling onRow for each record in order;
 * when onRow returns a promise, reading waits for it. Memory stays flat whatever the file size.
 * A malformed file (a quote never closed, a record over 1 MiB) fails with AUDIENCE_CSV_MALFORMED,
 * and one that cannot be decoded (see asUtf8) with AUDIENCE_ENCODING_INVALID at its line, after the
 * rows before it were handed over. maxBytes counts the file as UTF-8 (after any transcoding).
 */
export async function readCsvRows(
  source: AsyncIterable<Buffer | string>,
  options: CsvReadOptions,
  onRow: (row: CsvRow) => Promise<void> | undefined,
): Promise<CsvReadResult> {
  const state: ReadState = { tooLarge: false, encoding: undefined, unreadable: undefined };
  try {
    await pipeline(
      validUtf8Lines(wholeLinesWithin(asUtf8(source, state), options.maxBytes, state), state),
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
  if (state.unreadable !== undefined) {
    const { line, reason } = state.unreadable;
    throw new InvalidInputError(
      'AUDIENCE_ENCODING_INVALID',
      `The file cannot be read from line ${line}: ${reason}`,
      [{ field: 'file', reason: `line ${line}: ${reason}` }],
      { line },
    );
  }
  return { tooLarge: state.tooLarge, encoding: state.encoding };
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
