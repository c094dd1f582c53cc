import type { Readable } from 'node:stream';
import { Injectable, Logger, type OnModuleDestroy } from '@nestjs/common';
import {
  type Channel,
  HttpErrorCode,
  type OptOutImportSummary,
  type OptOutPage,
  type OptOutView,
  OptOutErrorCode,
} from '@ums/contracts';
import {
  addressNormalizerFor,
  analyzeOptOutHeader,
  isBlankRow,
  type OptOutLayout,
  optOutNormalizers,
  phoneCountry,
  validateOptOutRow,
} from '@ums/domain';
import { InvalidInputError, NotFoundError, TooLargeError, UnavailableError } from '@ums/platform';
import { AudienceConfig } from '../audience/audience.config';
import { type CsvRow, formatCsvRow, readCsvRows } from '../audience/audience-csv.reader';
import { OptOutImportWriter } from './opt-out-import.writer';
import { type OptOutCursor, OptOutsRepository } from './opt-outs.repository';
import { optOutsCsv } from './opt-outs-csv';

/** Source of an opt-out added through the API, and of imported rows without their own. */
export const API_SOURCE = 'api';
export const IMPORT_SOURCE = 'import';
/** Rows per keyset page of the CSV export. */
export const EXPORT_PAGE_SIZE = 5000;

/** The listing's filters and page, as the DTO gives them. */
export interface OptOutListQuery {
  readonly channel?: Channel;
  readonly address?: string;
  readonly defaultCountry?: string;
  readonly limit: number;
  readonly after?: string;
}

/**
 * A tenant's opt-outs: list, add, remove, CSV import and export. Addresses are stored as contacts
 * are (the audience normalizers, libs/domain), so every spelling of a number is one entry and the
 * expander's and single sends' lookups (exact matches on the stored form) find it.
 */
@Injectable()
export class OptOutsService implements OnModuleDestroy {
  private readonly logger = new Logger('opt-outs');
  /** Aborted at shutdown: a running import stops at its next chunk (rows landed so far are kept). */
  private readonly shutdown = new AbortController();

  constructor(
    private readonly repository: OptOutsRepository,
    private readonly config: AudienceConfig,
  ) {}

  async list(tenantId: string, query: OptOutListQuery): Promise<OptOutPage> {
    const exact =
      query.address === undefined
        ? undefined
        : addressCandidates(query.address, query.channel, query.defaultCountry);
    // One row more than asked tells whether another page exists.
    const rows = await this.repository.list({
      tenantId,
      channel: query.channel,
      exact,
      after: query.after === undefined ? undefined : cursorOf(query.after),
      limit: query.limit + 1,
    });
    const items = rows.slice(0, query.limit);
    const last = items.at(-1);
    return {
      items,
      nextAfter: rows.length > query.limit && last !== undefined ? `${last.channel}:${last.address}` : null,
    };
  }

  /** Opts an address out (source `api`); an existing opt-out stays as it was recorded. */
  async add(tenantId: string, channel: Channel, rawAddress: string, country?: string): Promise<OptOutView> {
    const key = { channel, address: normalizeAddress(channel, rawAddress, country) };
    await this.repository.insert(tenantId, [{ ...key, source: API_SOURCE }]);
    const stored = await this.repository.find(tenantId, key);
    if (stored === undefined) throw new Error(`opt-out ${channel}:${key.address} not found after its insert`);
    return stored;
  }

  /** Opts an address back in; 404 when it was not opted out. */
  async remove(tenantId: string, channel: Channel, rawAddress: string, country?: string): Promise<void> {
    const key = { channel, address: normalizeAddress(channel, rawAddress, country) };
    if (!(await this.repository.remove(tenantId, key))) {
      throw new NotFoundError(OptOutErrorCode.NotFound, `No opt-out for ${channel} ${key.address}`, {
        channel,
        address: key.address,
      });
    }
  }

  /**
   * Streams a CSV (header `channel,address[,source]`, other columns ignored) into opt-outs, chunk by
   * chunk (AUDIENCE_INSERT_CHUNK_ROWS rows per INSERT IGNORE), and answers what it did once the file
   * ended. Rows are rejected one by one with their line and reason; a refused header refuses the file.
   */
  async importCsv(
    tenantId: string,
    country: string | undefined,
    file: AsyncIterable<Buffer>,
  ): Promise<OptOutImportSummary> {
    const normalizers = optOutNormalizers(country === undefined ? undefined : phoneCountry(country));
    const writer = new OptOutImportWriter({
      insert: (rows) => this.repository.insert(tenantId, rows),
      chunkRows: this.config.AUDIENCE_INSERT_CHUNK_ROWS,
    });
    let layout: OptOutLayout | undefined;
    const onRow = (row: CsvRow): Promise<void> | undefined => {
      if (isBlankRow(row.cells)) return undefined;
      if (layout === undefined) {
        layout = headerLayout(row.cells);
        return undefined;
      }
      const verdict = validateOptOutRow(row.cells, layout, normalizers, IMPORT_SOURCE);
      if (verdict.ok)
        writer.accept({ channel: verdict.channel, address: verdict.address, source: verdict.source });
      else writer.reject(row.line, verdict.reason, formatCsvRow(row.cells));
      return writer.full ? writer.flush() : undefined;
    };
    const maxBytes = this.config.AUDIENCE_MAX_BYTES;
    const { tooLarge } = await this.read(file, maxBytes, onRow);
    await writer.flush();
    const summary = writer.summary;
    this.logger.log({ tenantId, ...summary, rejects: undefined }, 'Opt-out import done');
    if (tooLarge) {
      throw new TooLargeError(
        OptOutErrorCode.TooLarge,
        `The file is larger than AUDIENCE_MAX_BYTES (${maxBytes} bytes); the rows within that size were imported`,
        { ...summary, rejects: undefined },
      );
    }
    if (layout === undefined) {
      throw InvalidInputError.field(
        OptOutErrorCode.HeaderInvalid,
        'header',
        'the file is empty or has only blank lines',
      );
    }
    return summary;
  }

  onModuleDestroy(): void {
    this.shutdown.abort();
  }

  /** readCsvRows, stopped at shutdown with 503 (the rows landed before stay; importing again skips them). */
  private async read(
    file: AsyncIterable<Buffer>,
    maxBytes: number,
    onRow: (row: CsvRow) => Promise<void> | undefined,
  ): Promise<{ tooLarge: boolean }> {
    try {
      return await readCsvRows(file, { maxBytes, signal: this.shutdown.signal }, onRow);
    } catch (error: unknown) {
      if (!this.shutdown.signal.aborted) throw error;
      throw new UnavailableError(
        HttpErrorCode.ServiceShuttingDown,
        'The service is shutting down; rows landed so far are kept: import again to add the rest',
        undefined,
        { cause: error },
      );
    }
  }

  /** The tenant's opt-outs (of one channel, if given) as CSV, streamed a keyset page at a time. */
  exportCsv(tenantId: string, channel: Channel | undefined): Readable {
    const repository = this.repository;
    async function* pages(): AsyncGenerator<readonly OptOutView[]> {
      let after: OptOutCursor | undefined;
      for (;;) {
        const page = await repository.list({ tenantId, channel, after, limit: EXPORT_PAGE_SIZE });
        if (page.length > 0) yield page;
        const last = page.at(-1);
        if (page.length < EXPORT_PAGE_SIZE || last === undefined) return;
        after = { channel: last.channel, address: last.address };
      }
    }
    return optOutsCsv(pages(), (error) => {
      const code = (error as Error & { code?: unknown }).code;
      if (code === 'ERR_STREAM_PREMATURE_CLOSE') {
        this.logger.warn({ tenantId }, 'Opt-out export abandoned by the client');
      } else {
        this.logger.error({ err: error, tenantId }, 'Opt-out export failed part way; response cut off');
      }
    });
  }
}

function headerLayout(cells: readonly string[]): OptOutLayout {
  const analysis = analyzeOptOutHeader(cells);
  if (analysis.ok) return analysis.layout;
  throw new InvalidInputError(
    OptOutErrorCode.HeaderInvalid,
    `The header line is not usable: ${analysis.problems.join('; ')}`,
    analysis.problems.map((reason) => ({ field: 'header', reason })),
  );
}

/** The stored form of an address on a channel, or 400 naming the address and why. */
function normalizeAddress(channel: Channel, raw: string, country?: string): string {
  const result = addressNormalizerFor(
    channel,
    country === undefined ? undefined : phoneCountry(country),
  )(raw);
  if (result.ok) return result.address;
  throw InvalidInputError.field(OptOutErrorCode.AddressInvalid, 'address', result.reason);
}

/** The (channel, address) pairs an address filter means: its channel's, or every channel that reads it. */
function addressCandidates(raw: string, channel: Channel | undefined, country?: string): OptOutCursor[] {
  if (channel !== undefined) return [{ channel, address: normalizeAddress(channel, raw, country) }];
  const candidates: OptOutCursor[] = [];
  const reasons: string[] = [];
  for (const [each, normalize] of optOutNormalizers(
    country === undefined ? undefined : phoneCountry(country),
  )) {
    const result = normalize(raw);
    if (result.ok) candidates.push({ channel: each, address: result.address });
    else if (!reasons.includes(result.reason)) reasons.push(result.reason);
  }
  if (candidates.length > 0) return candidates;
  throw InvalidInputError.field(OptOutErrorCode.AddressInvalid, 'address', reasons.join('; '));
}

/** `<channel>:<address>` (the DTO checked the channel) as a keyset position. */
function cursorOf(after: string): OptOutCursor {
  const colon = after.indexOf(':');
  return { channel: after.slice(0, colon) as Channel, address: after.slice(colon + 1) };
}
