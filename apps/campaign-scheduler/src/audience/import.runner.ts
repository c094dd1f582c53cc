import type { Logger } from '@nestjs/common';
import { AudienceErrorCode, describeFailure, HttpErrorCode, type ImportState } from '@ums/contracts';
import { type AddressNormalizer, type AudienceLayout, isBlankRow, validateAudienceRow } from '@ums/domain';
import { CodedError, errorMessage, InvalidInputError, TooLargeError, UnavailableError } from '@ums/platform';
import { type CsvRow, readCsvRows } from './audience-csv.reader';
import type { AudienceImportWriter } from './audience-import.writer';
import type { ImportCounters, ImportRows } from './import-rows.sql';

const NO_ROWS: ImportCounters = { read: 0, accepted: 0, rejected: 0, duplicate: 0 };

/** Records an import's outcome (its row, and whatever goes with it). */
export type ImportRecorder = (
  state: Extract<ImportState, 'COMPLETED' | 'FAILED'>,
  counters: ImportCounters,
  error: string | null,
) => Promise<void>;

export interface ImportRunnerOptions {
  /** The rows of the imports this runner runs (kept alive, and failed when abandoned). */
  readonly rows: Pick<ImportRows<string>, 'touchImports' | 'abandonStale'>;
  /** How long a RUNNING import may go untouched before it is taken for abandoned. */
  readonly staleMs: number;
  readonly logger: Logger;
  /** The imports as logs name them, as a sentence starts. */
  readonly kind: 'Audience' | 'Contact list';
  /** What the imports land, as error texts name it. */
  readonly lands: 'rows' | 'members';
}

/** How a CSV file is read into an import, see ImportRunner.readCsv. */
export interface CsvImportSteps {
  /** The layout of the header (the first non-blank row); throws the coded error refusing it. */
  layoutOf(header: readonly string[]): AudienceLayout;
  /** The writer of the rows after the header (the import may be created here, once the header passed). */
  open(): Promise<AudienceImportWriter<readonly string[]>> | AudienceImportWriter<readonly string[]>;
  readonly normalize: AddressNormalizer;
  readonly maxBytes: number;
  /** The file as the 413 names it ("The file", "The audience file"). */
  readonly fileLabel: string;
}

/** An import to finish, see ImportRunner.finish. */
export interface ImportEnd {
  readonly importId: string;
  /** The import's writer: what it collected is landed first; none when the import read nothing. */
  readonly writer?: Pick<AudienceImportWriter<unknown>, 'drain' | 'counters'> | undefined;
  /** The totals landed, for an import without a writer (rows copied by SQL). */
  readonly counters?: ImportCounters;
  readonly failure: unknown;
  readonly record: ImportRecorder;
  /** Logged with the outcome (the campaign's or list's id). */
  readonly fields: Readonly<Record<string, string>>;
}

/**
 * What imports of rows from files run on, whether into a campaign's audience or a contact list:
 * reading a CSV file through the reader, the row rules and an AudienceImportWriter; recording the
 * outcome; tracking running imports so that shutdown stops them at their next chunk (FAILED, rows
 * landed so far kept) and waits; keeping the RUNNING ones alive and failing those whose process died.
 */
export class ImportRunner {
  /** Aborted at shutdown: every running import stops at its next chunk and is marked FAILED. */
  private readonly shutdown = new AbortController();
  private readonly running = new Set<Promise<unknown>>();
  /** Ids of the imports this process runs, touched periodically so no replica takes them for dead. */
  private readonly live = new Set<string>();
  private keeper: NodeJS.Timeout | undefined;
  private keeping = false;

  constructor(private readonly options: ImportRunnerOptions) {}

  get signal(): AbortSignal {
    return this.shutdown.signal;
  }

  /** Starts keeping this process's imports alive (onModuleInit). */
  start(): void {
    this.keeper = setInterval(() => void this.keepAlive(), Math.floor(this.options.staleMs / 5));
    this.keeper.unref();
  }

  /** Stops running imports at their next chunk (they end FAILED, rows landed so far kept) and waits. */
  async stop(): Promise<void> {
    this.shutdown.abort();
    await Promise.allSettled([...this.running]);
    clearInterval(this.keeper);
  }

  /** An import this process now runs (just created): kept alive until it is finished. */
  adopt(importId: string): void {
    this.live.add(importId);
  }

  /**
   * Reads a CSV file into an import: the first non-blank row is the header, every later row is
   * validated and accepted or rejected. Answers the writer (undefined when the file was refused
   * before one was opened) and why the import failed, if it did.
   */
  async readCsv(
    file: AsyncIterable<Buffer>,
    steps: CsvImportSteps,
  ): Promise<{ writer: AudienceImportWriter<readonly string[]> | undefined; failure: unknown }> {
    let layout: AudienceLayout | undefined;
    let writer: AudienceImportWriter<readonly string[]> | undefined;
    let failure: unknown;
    const open = async (): Promise<void> => {
      writer = await steps.open();
    };
    const onRow = (row: CsvRow): Promise<void> | undefined => {
      if (isBlankRow(row.cells)) return undefined;
      if (writer === undefined) {
        layout = steps.layoutOf(row.cells);
        return open();
      }
      const verdict = validateAudienceRow(row.cells, layout as AudienceLayout, steps.normalize);
      if (verdict.ok) writer.accept(row.line, verdict.address, verdict.variables, row.cells);
      else writer.reject(row.line, verdict.reason, row.cells);
      return writer.full ? writer.flush() : undefined;
    };
    try {
      const { tooLarge } = await readCsvRows(file, { maxBytes: steps.maxBytes, signal: this.signal }, onRow);
      if (tooLarge) {
        failure = new TooLargeError(
          AudienceErrorCode.TooLarge,
          `${steps.fileLabel} is larger than AUDIENCE_MAX_BYTES (${steps.maxBytes} bytes); ` +
            'the rows within that size were imported',
        );
      } else if (layout === undefined) {
        failure = new InvalidInputError(AudienceErrorCode.HeaderInvalid, 'The file has no header line', [
          { field: 'header', reason: 'the file is empty or has only blank lines' },
        ]);
      }
    } catch (error: unknown) {
      failure = error;
    }
    return { writer, failure };
  }

  /**
   * Lands what is left and records the outcome. With a failure, rows collected before it are still
   * landed (they were read completely), then the failure is rethrown as ImportFinishedError.
   */
  async finish(end: ImportEnd): Promise<void> {
    const { importId, writer } = end;
    const { kind, logger } = this.options;
    let outcome = end.failure === undefined ? undefined : this.publicError(end.failure);
    try {
      await writer?.drain();
    } catch (error: unknown) {
      if (outcome === undefined) outcome = error;
      else logger.error({ err: error, importId }, `Could not land the last ${kind.toLowerCase()} rows`);
    }
    const counters = writer?.counters ?? end.counters ?? NO_ROWS;
    const error = outcome === undefined ? null : importFailure(outcome);
    try {
      await end.record(error === null ? 'COMPLETED' : 'FAILED', counters, error);
    } finally {
      this.live.delete(importId);
    }
    const fields = {
      ...end.fields,
      importId,
      rowsRead: counters.read,
      rowsAccepted: counters.accepted,
      rowsRejected: counters.rejected,
      rowsDuplicate: counters.duplicate,
    };
    if (error === null) logger.log(fields, `${kind} import completed`);
    else logger.warn({ ...fields, error }, `${kind} import failed`);
    if (outcome !== undefined) throw new ImportFinishedError(kind, importId, outcome);
  }

  /** Records an import that failed before reading anything (its file could not be fetched). */
  async fail(importId: string, error: unknown, record: ImportRecorder): Promise<void> {
    try {
      await record('FAILED', NO_ROWS, importFailure(this.publicError(error)));
    } finally {
      this.live.delete(importId);
    }
  }

  /**
   * Runs `work` (reading an import's file) in the background; a failure it did not record itself
   * (a fetch that failed) is recorded as the import's and logged.
   */
  background(end: Omit<ImportEnd, 'writer' | 'counters' | 'failure'>, work: () => Promise<void>): void {
    const { kind, logger } = this.options;
    const { importId, fields } = end;
    void this.track(async () => {
      try {
        await work();
      } catch (error: unknown) {
        if (error instanceof ImportFinishedError) return;
        await this.fail(importId, error, end.record);
        logger.warn({ ...fields, importId, error: importFailure(error) }, `${kind} URL import failed`);
      }
    }).catch((error: unknown) => {
      logger.error(
        { err: error, ...fields, importId },
        `Could not record the end of a ${kind.toLowerCase()} import`,
      );
    });
  }

  /** Runs an import so that shutdown can wait for it; answers with the coded error it failed with. */
  async track<T>(work: () => Promise<T>): Promise<T> {
    this.throwIfShuttingDown();
    const task = work();
    this.running.add(task);
    try {
      return await task;
    } catch (error: unknown) {
      throw unwrapWithImport(error);
    } finally {
      this.running.delete(task);
    }
  }

  throwIfShuttingDown(): void {
    if (this.signal.aborted) throw this.shuttingDown();
  }

  /** The error a caller should see: aborts at shutdown become 503, anything coded stays as it is. */
  publicError(error: unknown): unknown {
    if (error instanceof CodedError) return error;
    if (this.signal.aborted) return this.shuttingDown();
    return error;
  }

  private shuttingDown(): UnavailableError {
    return new UnavailableError(
      HttpErrorCode.ServiceShuttingDown,
      `The service is shutting down; ${this.options.lands} landed so far are kept: import again to add ` +
        'the rest (duplicates are skipped)',
    );
  }

  /**
   * Touches the imports this process runs (a slow source may not land a chunk for a while), then
   * fails RUNNING imports nobody touched for staleMs: their process died (a crash, a SIGKILL), and
   * without this they would stay RUNNING for ever.
   */
  private async keepAlive(): Promise<void> {
    if (this.keeping) return;
    this.keeping = true;
    const { rows, staleMs, logger, kind, lands } = this.options;
    const imports = `${kind.toLowerCase()} imports`;
    try {
      await rows.touchImports([...this.live]);
      const abandoned = await rows.abandonStale(
        staleMs,
        describeFailure(
          AudienceErrorCode.ImportAbandoned,
          `no sign of life for ${staleMs} ms; the process running it stopped. ` +
            `${lands[0]?.toUpperCase()}${lands.slice(1)} landed so far are kept: import again to add the ` +
            'rest (duplicates are skipped)',
        ),
      );
      if (abandoned > 0) logger.warn({ abandoned }, `Marked abandoned ${imports} FAILED`);
    } catch (error: unknown) {
      logger.error({ err: error }, `Could not keep ${imports} alive or fail abandoned ones`);
    } finally {
      this.keeping = false;
    }
  }
}

/** Why an import stopped, as stored in its error column (one column: see describeFailure). */
export function importFailure(error: unknown): string {
  if (error instanceof CodedError) return describeFailure(error.code, error.message);
  // Network and undici errors carry their own codes (ECONNREFUSED, UND_ERR_BODY_TIMEOUT...).
  const code: unknown = error instanceof Error ? (error as Error & { code?: unknown }).code : undefined;
  return describeFailure(
    typeof code === 'string' && code !== '' ? code : HttpErrorCode.Unexpected,
    errorMessage(error),
  );
}

/** A failure already recorded on its import (state FAILED, error set). */
export class ImportFinishedError extends Error {
  constructor(
    kind: string,
    readonly importId: string,
    override readonly cause: unknown,
  ) {
    super(`${kind} import ${importId} failed: ${errorMessage(cause)}`);
  }
}

/** The coded error of a finished import, with the import's id in its details so callers can look it up. */
function unwrapWithImport(error: unknown): unknown {
  if (!(error instanceof ImportFinishedError)) return error;
  const cause = error.cause;
  const details = { importId: error.importId };
  if (cause instanceof InvalidInputError) {
    return new InvalidInputError(cause.code, cause.message, cause.fields, { ...cause.details, ...details });
  }
  if (cause instanceof TooLargeError) return new TooLargeError(cause.code, cause.message, details);
  if (cause instanceof UnavailableError) return new UnavailableError(cause.code, cause.message, details);
  return cause;
}
