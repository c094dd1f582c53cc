import { Injectable, Logger, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import {
  type AddressNormalizer,
  addressKindOf,
  AddressKind,
  addressNormalizerFor,
  analyzeAudienceHeader,
  type AudienceLayout,
  canImportAudience,
  isBlankRow,
  phoneCountry,
  type RecipientInput,
  type TemplateContent,
  templateVariables,
  validateAudienceRow,
  validateRecipient,
} from '@ums/domain';
import {
  CodedError,
  ConflictError,
  errorMessage,
  InvalidInputError,
  NotFoundError,
  type TenantFilter,
  TooLargeError,
  UnavailableError,
} from '@ums/platform';
import { AudienceErrorCode, CampaignErrorCode, describeFailure, HttpErrorCode } from '@ums/contracts';
import { AudienceConfig } from './audience.config';
import { MAX_INLINE_RECIPIENTS } from './audience.dto';
import { type AudienceCampaign, AudienceRepository } from './audience.repository';
import { type CsvRow, formatCsvRow, readCsvRows } from './audience-csv.reader';
import type { AudienceImportView, ImportSource, ImportSummary, RejectView } from './audience-import.view';
import { AudienceImportWriter } from './audience-import.writer';
import { AudienceUrlFetcher, parseAudienceUrl } from './audience-url.fetcher';

export type { ImportSummary } from './audience-import.view';

const FIRST_REJECTS = 20;

/** A campaign checked for an import, with the rules its rows are held to. */
interface ImportTarget {
  readonly campaign: AudienceCampaign;
  /** Variables the template uses: required columns (files) or keys (inline), never empty. */
  readonly variables: readonly string[];
  readonly normalize: AddressNormalizer;
}

/** Why an import stopped, as stored in audience_imports.error (one column: see describeFailure). */
function importFailure(error: unknown): string {
  if (error instanceof CodedError) return describeFailure(error.code, error.message);
  // Network and undici errors carry their own codes (ECONNREFUSED, UND_ERR_BODY_TIMEOUT...).
  const code: unknown = error instanceof Error ? (error as Error & { code?: unknown }).code : undefined;
  return describeFailure(
    typeof code === 'string' && code !== '' ? code : HttpErrorCode.Unexpected,
    errorMessage(error),
  );
}

function describeRecipient(recipient: RecipientInput): string {
  return JSON.stringify({ address: recipient.address, variables: recipient.variables ?? undefined });
}

/**
 * Imports a campaign's recipients from a CSV upload, a file URL or a list. Rows stream through
 * the pure rules of @ums/domain (header, address, row) into an AudienceImportWriter, which lands
 * them in chunks; nothing collects the rows, so a file of any size imports in flat memory.
 * Every rejected row is stored with its line and reason; the import row shows progress.
 */
@Injectable()
export class AudienceImportService implements OnModuleInit, OnModuleDestroy {
  private readonly logger = new Logger(AudienceImportService.name);
  /** Aborted at shutdown: every running import stops at its next chunk and is marked FAILED. */
  private readonly shutdown = new AbortController();
  private readonly running = new Set<Promise<unknown>>();
  /** Ids of the imports this process runs, touched periodically so no replica takes them for dead. */
  private readonly live = new Set<string>();
  private keeper: NodeJS.Timeout | undefined;
  private keeping = false;

  constructor(
    private readonly repository: AudienceRepository,
    private readonly config: AudienceConfig,
    private readonly fetcher: AudienceUrlFetcher,
  ) {}

  /**
   * Streams an uploaded file into a new import and answers when it is done. The campaign is checked
   * (the tenant's, editable) before the file is opened; the import row is created once the header
   * passed, so a refused header (400) leaves nothing behind.
   */
  async importCsv(
    campaignId: string,
    tenant: TenantFilter,
    openFile: () => Promise<AsyncIterable<Buffer>>,
  ): Promise<ImportSummary> {
    const target = await this.prepare(campaignId, tenant);
    return this.track(async () => {
      const file = await openFile();
      const importId = await this.importFile(target, file, 'csv');
      return this.summary(campaignId, importId, tenant);
    });
  }

  /** Imports recipients given as data; their line numbers are their 1-based positions in the list. */
  async importInline(
    campaignId: string,
    tenant: TenantFilter,
    recipients: readonly RecipientInput[],
    source: Extract<ImportSource, 'inline' | 'request'>,
  ): Promise<ImportSummary> {
    if (recipients.length < 1 || recipients.length > MAX_INLINE_RECIPIENTS) {
      throw InvalidInputError.field(
        AudienceErrorCode.RecipientsInvalid,
        'recipients',
        `must hold 1 to ${MAX_INLINE_RECIPIENTS} recipients, got ${recipients.length}`,
      );
    }
    const target = await this.prepare(campaignId, tenant);
    return this.track(async () => {
      const importId = await this.createImport(campaignId, source);
      const writer = this.writer(target, importId, describeRecipient);
      let failure: unknown;
      try {
        for (let i = 0; i < recipients.length; i++) {
          const recipient = recipients[i] as RecipientInput;
          const verdict = validateRecipient(recipient, target.variables, target.normalize);
          if (verdict.ok) writer.accept(i + 1, verdict.address, verdict.variables, recipient);
          else writer.reject(i + 1, verdict.reason, recipient);
          if (writer.full) {
            this.throwIfShuttingDown();
            await writer.flush();
          }
        }
      } catch (error: unknown) {
        failure = error;
      }
      await this.finish(writer, failure);
      return this.summary(campaignId, importId, tenant);
    });
  }

  /**
   * Creates the import and fetches and imports the file in the background; answers at once with
   * the import RUNNING. Fetch and import failures land in the import's error, state FAILED.
   */
  async startUrlImport(
    campaignId: string,
    tenant: TenantFilter,
    url: string,
    source: Extract<ImportSource, 'url' | 'request'>,
  ): Promise<ImportSummary> {
    this.throwIfShuttingDown();
    // The campaign first: another tenant's is 404 whatever the URL.
    const target = await this.prepare(campaignId, tenant);
    const parsed = parseAudienceUrl(url);
    const importId = await this.createImport(campaignId, source);
    const started = await this.summary(campaignId, importId, tenant);
    void this.track(async () => {
      try {
        const body = await this.fetcher.open(parsed, this.shutdown.signal);
        await this.importFile(target, body, source, importId);
      } catch (error: unknown) {
        // importFile records (and logs) its own failures; a fetch that failed is recorded here.
        if (error instanceof ImportFinishedError) return;
        await this.fail(importId, error);
        this.logger.warn({ campaignId, importId, error: importFailure(error) }, 'Audience URL import failed');
      }
    }).catch((error: unknown) => {
      this.logger.error(
        { err: error, campaignId, importId },
        'Could not record the end of an audience import',
      );
    });
    return started;
  }

  async getImport(campaignId: string, tenant: TenantFilter, importId: string): Promise<ImportSummary> {
    return this.summary(campaignId, importId, tenant);
  }

  async listImports(
    campaignId: string,
    tenant: TenantFilter,
    limit: number,
    before?: string,
  ): Promise<AudienceImportView[]> {
    await this.existingCampaign(campaignId, tenant);
    return this.repository.listImports(campaignId, tenant, limit, before);
  }

  async rejects(
    campaignId: string,
    tenant: TenantFilter,
    importId: string,
    page: { readonly after: number; readonly limit: number },
  ): Promise<{ items: RejectView[]; nextAfter: number | null }> {
    await this.existingImport(campaignId, importId, tenant);
    const { after, limit } = page;
    const items = await this.repository.rejects(campaignId, importId, tenant, { afterLine: after, limit });
    const last = items[items.length - 1];
    return { items, nextAfter: items.length === limit && last !== undefined ? last.line : null };
  }

  onModuleInit(): void {
    const every = Math.floor(this.config.AUDIENCE_IMPORT_STALE_MS / 5);
    this.keeper = setInterval(() => void this.keepAlive(), every);
    this.keeper.unref();
  }

  /** Stops running imports at their next chunk (they end FAILED, rows landed so far kept) and waits. */
  async onModuleDestroy(): Promise<void> {
    this.shutdown.abort();
    await Promise.allSettled([...this.running]);
    clearInterval(this.keeper);
  }

  /**
   * Touches the imports this process runs (a slow source may not land a chunk for a while), then
   * fails RUNNING imports nobody touched for AUDIENCE_IMPORT_STALE_MS: their process died (a crash,
   * a SIGKILL), and without this they would stay RUNNING for ever.
   */
  private async keepAlive(): Promise<void> {
    if (this.keeping) return;
    this.keeping = true;
    try {
      await this.repository.touchImports([...this.live]);
      const staleMs = this.config.AUDIENCE_IMPORT_STALE_MS;
      const abandoned = await this.repository.abandonStale(
        staleMs,
        describeFailure(
          AudienceErrorCode.ImportAbandoned,
          `no sign of life for ${staleMs} ms; the process running it stopped. Rows landed so far ` +
            'are kept: import again to add the rest (duplicates are skipped)',
        ),
      );
      if (abandoned > 0) this.logger.warn({ abandoned }, 'Marked abandoned audience imports FAILED');
    } catch (error: unknown) {
      this.logger.error({ err: error }, 'Could not keep audience imports alive or fail abandoned ones');
    } finally {
      this.keeping = false;
    }
  }

  private async createImport(campaignId: string, source: ImportSource): Promise<string> {
    const importId = await this.repository.createImport(campaignId, source);
    this.live.add(importId);
    return importId;
  }

  /**
   * Reads a CSV file into an import: the first non-blank row is the header. Without an importId
   * the import is created once the header passed. Always finishes the import it created or was
   * given; failures are rethrown (wrapped in ImportFinishedError when the import recorded them).
   */
  private async importFile(
    target: ImportTarget,
    file: AsyncIterable<Buffer>,
    source: ImportSource,
    givenImportId?: string,
  ): Promise<string> {
    let layout: AudienceLayout | undefined;
    let writer: AudienceImportWriter<readonly string[]> | undefined;
    let failure: unknown;
    const start = async (): Promise<void> => {
      const importId = givenImportId ?? (await this.createImport(target.campaign.id, source));
      writer = this.writer(target, importId, formatCsvRow);
    };
    const onRow = (row: CsvRow): Promise<void> | undefined => {
      if (isBlankRow(row.cells)) return undefined;
      if (writer === undefined) {
        layout = this.layoutOf(row.cells, target);
        return start();
      }
      const verdict = validateAudienceRow(row.cells, layout as AudienceLayout, target.normalize);
      if (verdict.ok) writer.accept(row.line, verdict.address, verdict.variables, row.cells);
      else writer.reject(row.line, verdict.reason, row.cells);
      return writer.full ? writer.flush() : undefined;
    };
    try {
      const { tooLarge } = await readCsvRows(
        file,
        { maxBytes: this.config.AUDIENCE_MAX_BYTES, signal: this.shutdown.signal },
        onRow,
      );
      if (tooLarge) {
        failure = new TooLargeError(
          AudienceErrorCode.TooLarge,
          `The audience file is larger than AUDIENCE_MAX_BYTES (${this.config.AUDIENCE_MAX_BYTES} bytes); ` +
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
    if (writer === undefined && givenImportId !== undefined) {
      writer = this.writer(target, givenImportId, formatCsvRow);
    }
    if (writer === undefined) {
      // Refused before any import existed (header, campaign gone): nothing to record.
      if (failure !== undefined) throw this.publicError(failure);
      throw new Error('An audience file ended without a header and without a failure');
    }
    await this.finish(writer, failure);
    return writer.importId;
  }

  private writer<S>(
    target: ImportTarget,
    importId: string,
    describe: (source: S) => string,
  ): AudienceImportWriter<S> {
    return new AudienceImportWriter<S>(
      this.repository,
      target.campaign.id,
      importId,
      this.config.AUDIENCE_INSERT_CHUNK_ROWS,
      describe,
    );
  }

  /**
   * Lands what is left and records the outcome. With a failure, rows collected before it are still
   * landed (they were read completely), then the failure is rethrown as ImportFinishedError.
   */
  private async finish<S>(writer: AudienceImportWriter<S>, failure: unknown): Promise<void> {
    let outcome = failure === undefined ? undefined : this.publicError(failure);
    try {
      await writer.drain();
    } catch (error: unknown) {
      if (outcome === undefined) outcome = error;
      else
        this.logger.error({ err: error, importId: writer.importId }, 'Could not land the last audience rows');
    }
    const counters = writer.counters;
    const error = outcome === undefined ? null : importFailure(outcome);
    try {
      await this.repository.finish(writer.importId, error === null ? 'COMPLETED' : 'FAILED', counters, error);
    } finally {
      this.live.delete(writer.importId);
    }
    const fields = {
      campaignId: writer.campaignId,
      importId: writer.importId,
      rowsRead: counters.read,
      rowsAccepted: counters.accepted,
      rowsRejected: counters.rejected,
      rowsDuplicate: counters.duplicate,
    };
    if (error === null) this.logger.log(fields, 'Audience import completed');
    else this.logger.warn({ ...fields, error }, 'Audience import failed');
    if (outcome !== undefined) throw new ImportFinishedError(writer.importId, outcome);
  }

  private async fail(importId: string, error: unknown): Promise<void> {
    try {
      await this.repository.finish(
        importId,
        'FAILED',
        { read: 0, accepted: 0, rejected: 0, duplicate: 0 },
        importFailure(this.publicError(error)),
      );
    } finally {
      this.live.delete(importId);
    }
  }

  /** Runs an import so that shutdown can wait for it; answers with the coded error it failed with. */
  private async track<T>(work: () => Promise<T>): Promise<T> {
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

  private throwIfShuttingDown(): void {
    if (this.shutdown.signal.aborted) throw this.shuttingDown();
  }

  private shuttingDown(): UnavailableError {
    return new UnavailableError(
      HttpErrorCode.ServiceShuttingDown,
      'The service is shutting down; rows landed so far are kept: import again to add the rest ' +
        '(duplicates are skipped)',
    );
  }

  /** The error a caller should see: aborts at shutdown become 503, anything coded stays as it is. */
  private publicError(error: unknown): unknown {
    if (error instanceof CodedError) return error;
    if (this.shutdown.signal.aborted) return this.shuttingDown();
    return error;
  }

  private layoutOf(header: readonly string[], target: ImportTarget): AudienceLayout {
    const analysis = analyzeAudienceHeader(header, target.campaign.channel, target.variables);
    if (analysis.ok) return analysis.layout;
    if (analysis.code === AudienceErrorCode.HeaderInvalid) {
      throw new InvalidInputError(
        analysis.code,
        `The header line is not usable: ${analysis.problems.join('; ')}`,
        analysis.problems.map((reason) => ({ field: 'header', reason })),
      );
    }
    throw new InvalidInputError(
      analysis.code,
      `The campaign's template uses columns the file does not have: ${analysis.missing.join(', ')}`,
      analysis.missing.map((name) => ({ field: name, reason: 'column missing; the template uses it' })),
      { missing: analysis.missing },
    );
  }

  /** The campaign when it is the tenant's; another tenant's is 404 exactly as a missing one. */
  private async existingCampaign(campaignId: string, tenant: TenantFilter): Promise<AudienceCampaign> {
    const campaign = await this.repository.campaign(campaignId, tenant);
    if (campaign === undefined) {
      throw new NotFoundError(CampaignErrorCode.NotFound, `Campaign ${campaignId} does not exist`);
    }
    return campaign;
  }

  private async existingImport(
    campaignId: string,
    importId: string,
    tenant: TenantFilter,
  ): Promise<AudienceImportView> {
    const view = await this.repository.findImport(campaignId, importId, tenant);
    if (view === undefined) {
      await this.existingCampaign(campaignId, tenant);
      throw new NotFoundError(
        AudienceErrorCode.ImportNotFound,
        `Campaign ${campaignId} has no audience import ${importId}`,
      );
    }
    return view;
  }

  private async summary(campaignId: string, importId: string, tenant: TenantFilter): Promise<ImportSummary> {
    const view = await this.existingImport(campaignId, importId, tenant);
    return { ...view, firstRejects: await this.repository.firstRejects(importId, FIRST_REJECTS) };
  }

  /** The campaign must be the tenant's, accept audience changes, and have a usable template and country. */
  private async prepare(campaignId: string, tenant: TenantFilter): Promise<ImportTarget> {
    const campaign = await this.existingCampaign(campaignId, tenant);
    if (!canImportAudience(campaign.state)) {
      throw new ConflictError(
        CampaignErrorCode.NotEditable,
        `The audience of a ${campaign.state} campaign cannot change`,
      );
    }
    const template: unknown =
      typeof campaign.template === 'string' ? JSON.parse(campaign.template) : campaign.template;
    if (typeof template !== 'object' || template === null || Array.isArray(template)) {
      throw new ConflictError(
        CampaignErrorCode.TemplateUnusable,
        `Campaign ${campaignId} has no usable template`,
      );
    }
    const variables = templateVariables(template as TemplateContent);
    if (!variables.ok) {
      throw new ConflictError(
        CampaignErrorCode.TemplateUnusable,
        `Campaign ${campaignId} has an invalid template: ${variables.field}: ${variables.reason}`,
      );
    }
    let country: ReturnType<typeof phoneCountry>;
    if (addressKindOf(campaign.channel) === AddressKind.Phone && campaign.defaultCountry !== null) {
      country = phoneCountry(campaign.defaultCountry);
      if (country === undefined) {
        throw new ConflictError(
          CampaignErrorCode.DefaultCountryInvalid,
          `Campaign ${campaignId} has default country ${campaign.defaultCountry}, which has no phone numbering plan`,
        );
      }
    }
    return {
      campaign,
      variables: variables.variables,
      normalize: addressNormalizerFor(campaign.channel, country),
    };
  }
}

/** A failure already recorded on its import (state FAILED, error set). */
class ImportFinishedError extends Error {
  constructor(
    readonly importId: string,
    override readonly cause: unknown,
  ) {
    super(`Audience import ${importId} failed: ${errorMessage(cause)}`);
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
