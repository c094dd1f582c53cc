import { isUtf8 } from 'node:buffer';
import type { TransformCallback } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { CsvError, Parser } from 'csv-parse';
import { getDecoder } from 'iconv-lite';
import {
  AudienceEncoding,
  byteOrderMark,
  detectUnmarkedEncoding,
  ENCODING_SAMPLE_BYTES,
  firstNonAsciiOffset,
  invalidUtf8Offset,
  undefinedWindows1252Offset,
  utf8Refusal,
  utf8SequenceAt,
  windows1252Refusal,
} from '@ums/domain';
import { InvalidInputError } from '@ums/platform';
import { AudienceErrorCode } from '@ums/contracts';

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
// Enough bytes to tell every byte-order mark read here (UTF-32's is four bytes long).
const BOM_BYTES = 4;

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
  // A file cut short for its encoding ends at the start of the line at fault, not part way into it.
  if (carry.length > 0 && state.unreadable === undefined) yield carry;
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

/** `head` and the chunks after it until there are at least `size` bytes, or the source ended. */
async function readUntil(
  head: Buffer,
  chunks: AsyncGenerator<Buffer>,
  size: number,
): Promise<{ bytes: Buffer; ended: boolean }> {
  const parts = [head];
  let length = head.length;
  while (length < size) {
    const next = await chunks.next();
    if (next.done === true) return { bytes: Buffer.concat(parts), ended: true };
    parts.push(next.value);
    length += next.value.length;
  }
  return { bytes: parts.length === 1 ? head : Buffer.concat(parts), ended: false };
}

/**
 * Passes the file on as UTF-8, streaming, in the encoding its first bytes show: a byte-order mark
 * decides (UTF-8, UTF-16 LE or BE, transcoded with iconv-lite); without one, plain ASCII goes on as
 * it is (it reads the same in UTF-8 and Windows-1252) until the first other byte. A whole UTF-8
 * character there means UTF-8; anything else is decided on ENCODING_SAMPLE_BYTES from its chunk on
 * (detectUnmarkedEncoding in @ums/domain): Windows-1252, transcoded, or refused. A refusal ends the
 * file at the start of the line at fault, recorded in state.unreadable.
 */
async function* asUtf8(source: AsyncIterable<Buffer | string>, state: ReadState): AsyncGenerator<Buffer> {
  const chunks = remaining(source[Symbol.asyncIterator]());
  const start = await readUntil(EMPTY, chunks, BOM_BYTES);
  const marked = byteOrderMark(start.bytes);
  if (marked === undefined) {
    yield* unmarked(start, chunks, state);
  } else if (!marked.ok) {
    state.unreadable = { line: 1, reason: marked.reason };
    await chunks.return(undefined);
  } else {
    state.encoding = marked.encoding;
    yield* decoded(marked.encoding, start.bytes.subarray(marked.bomLength), chunks, state, 1);
  }
}

async function* unmarked(
  start: { bytes: Buffer; ended: boolean },
  chunks: AsyncGenerator<Buffer>,
  state: ReadState,
): AsyncGenerator<Buffer> {
  let { bytes: head, ended } = start;
  let line = 1;
  // The file's first ASCII bytes, context for the guess (chardet guesses poorly on a few bytes).
  const context: Buffer[] = [];
  let contextBytes = 0;
  for (let at = firstNonAsciiOffset(head); at === -1; at = firstNonAsciiOffset(head)) {
    line += countLineFeedBytes(head);
    if (contextBytes < ENCODING_SAMPLE_BYTES) {
      context.push(head.subarray(0, ENCODING_SAMPLE_BYTES - contextBytes));
      contextBytes += context.at(-1)?.length ?? 0;
    }
    if (head.length > 0) yield head;
    const next = ended ? undefined : await chunks.next();
    if (next === undefined || next.done === true) {
      state.encoding = AudienceEncoding.Utf8;
      return;
    }
    head = next.value;
  }
  const at = firstNonAsciiOffset(head);
  while (utf8SequenceAt(head, at) === 'incomplete' && !ended) {
    ({ bytes: head, ended } = await readUntil(head, chunks, head.length + 1));
  }
  // A NUL is decided on the sample too (it is refused there), though it is valid UTF-8.
  if (head[at] !== 0 && utf8SequenceAt(head, at) === 'valid') {
    state.encoding = AudienceEncoding.Utf8;
    yield head;
    yield* chunks;
    return;
  }
  const sample = ended ? { bytes: head, ended } : await readUntil(head, chunks, ENCODING_SAMPLE_BYTES);
  const verdict = detectUnmarkedEncoding(sample.bytes, sample.ended, Buffer.concat(context));
  if (!verdict.ok) {
    const lineStart = sample.bytes.lastIndexOf(NEWLINE, verdict.offset) + 1;
    if (lineStart > 0) yield sample.bytes.subarray(0, lineStart);
    state.unreadable = { line: line + verdict.line - 1, reason: verdict.reason };
    await chunks.return(undefined);
    return;
  }
  state.encoding = verdict.encoding;
  yield* decoded(verdict.encoding, sample.bytes, chunks, state, line);
}

/** `first` and the chunks after it, from `encoding` to UTF-8; `line` is the line `first` starts on. */
async function* decoded(
  encoding: AudienceEncoding,
  first: Buffer,
  chunks: AsyncGenerator<Buffer>,
  state: ReadState,
  line: number,
): AsyncGenerator<Buffer> {
  if (encoding === AudienceEncoding.Utf8) {
    if (first.length > 0) yield first;
    yield* chunks;
  } else if (encoding === AudienceEncoding.Windows1252) {
    yield* fromWindows1252(first, chunks, state, line);
  } else {
    const decoder = getDecoder(encoding);
    yield Buffer.from(decoder.write(first), 'utf8');
    for await (const chunk of chunks) yield Buffer.from(decoder.write(chunk), 'utf8');
    const tail = decoder.end();
    if (tail !== undefined && tail !== '') yield Buffer.from(tail, 'utf8');
  }
}

async function* fromWindows1252(
  first: Buffer,
  rest: AsyncIterable<Buffer>,
  state: ReadState,
  firstLine: number,
): AsyncGenerator<Buffer> {
  const decoder = getDecoder(AudienceEncoding.Windows1252);
  let line = firstLine;
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
    line += countLineFeedBytes(buffer);
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
      throw InvalidInputError.field(
        AudienceErrorCode.CsvMalformed,
        'file',
        `malformed CSV: ${error.message}`,
      );
    }
  }
  if (state.unreadable !== undefined) {
    const { line, reason } = state.unreadable;
    throw new InvalidInputError(
      AudienceErrorCode.EncodingInvalid,
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
