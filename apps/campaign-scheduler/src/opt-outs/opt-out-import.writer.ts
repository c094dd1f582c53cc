import type { OptOutImportSummary, OptOutRejectedLine } from '@ums/contracts';
import type { NewOptOut } from './opt-outs.repository';

/** Rejected rows an import answer lists; past these only their number is given. */
export const LISTED_REJECTS = 1000;
const MAX_RAW_CHARS = 1024;

export interface OptOutImportWriterOptions {
  /** Lands one chunk (a multi-row INSERT IGNORE); answers how many rows were new. */
  readonly insert: (rows: readonly NewOptOut[]) => Promise<number>;
  /** Rows per chunk. */
  readonly chunkRows: number;
}

/**
 * Collects an import's accepted rows into chunks and lands each with one statement; counts what was
 * read, added, already there and rejected, and keeps the first rejected rows for the answer.
 */
export class OptOutImportWriter {
  private chunk: NewOptOut[] = [];
  private read = 0;
  private added = 0;
  private duplicate = 0;
  private rejected = 0;
  private readonly rejects: OptOutRejectedLine[] = [];

  constructor(private readonly options: OptOutImportWriterOptions) {}

  get full(): boolean {
    return this.chunk.length >= this.options.chunkRows;
  }

  accept(row: NewOptOut): void {
    this.read++;
    this.chunk.push(row);
  }

  reject(line: number, reason: string, raw: string): void {
    this.read++;
    this.rejected++;
    if (this.rejects.length < LISTED_REJECTS)
      this.rejects.push({ line, reason, raw: raw.slice(0, MAX_RAW_CHARS) });
  }

  /** Lands the collected rows (if any). */
  async flush(): Promise<void> {
    if (this.chunk.length === 0) return;
    const rows = this.chunk;
    this.chunk = [];
    const added = await this.options.insert(rows);
    this.added += added;
    this.duplicate += rows.length - added;
  }

  get summary(): OptOutImportSummary {
    return {
      rowsRead: this.read,
      rowsAdded: this.added,
      rowsDuplicate: this.duplicate,
      rowsRejected: this.rejected,
      rejects: [...this.rejects],
      rejectsOmitted: this.rejected - this.rejects.length,
    };
  }
}
