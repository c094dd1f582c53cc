import { Injectable, Logger, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import {
  type AddressNormalizer,
  addressKindOf,
  AddressKind,
  addressNormalizerFor,
  analyzeAudienceHeader,
  type AudienceLayout,
  canImportAudience,
  phoneCountry,
  type RecipientInput,
  type TemplateContent,
  templateVariables,
  validateRecipient,
} from '@ums/domain';
import { ConflictError, InvalidInputError, NotFoundError, type TenantFilter } from '@ums/platform';
import { AudienceErrorCode, CampaignErrorCode } from '@ums/contracts';
import { AudienceConfig } from './audience.config';
import { MAX_INLINE_RECIPIENTS } from './audience.dto';
import { type AudienceCampaign, AudienceRepository, type ImportCounters } from './audience.repository';
import { formatCsvRow } from './audience-csv.reader';
import type { AudienceImportView, ImportSource, ImportSummary, RejectView } from './audience-import.view';
import { AudienceImportWriter } from './audience-import.writer';
import { AudienceUrlFetcher, parseAudienceUrl } from './audience-url.fetcher';
import { type ImportRecorder, ImportRunner } from './import.runner';

export type { ImportSummary } from './audience-import.view';

const FIRST_REJECTS = 20;
const NO_ROWS: ImportCounters = { read: 0, accepted: 0, rejected: 0, duplicate: 0 };

/** What a copy into a campaign's audience (see importCopied) gets to land its rows. */
export interface AudienceCopyJob {
  readonly campaignId: string;
  readonly importId: string;
  /** Variables the campaign's template uses: a row without a non-blank value of each is rejected. */
  readonly requiredVariables: readonly string[];
  /** Aborted at shutdown: stop at the next window (throw), rows landed so far are kept. */
  readonly signal: AbortSignal;
  /** Records the running totals on the import (absolute, as the writer's progress). */
  progress(counters: ImportCounters): Promise<void>;
}

/** A campaign checked for an import, with the rules its rows are held to. */
interface ImportTarget {
  readonly campaign: AudienceCampaign;
  /** Variables the template uses: required columns (files) or keys (inline), never empty. */
  readonly variables: readonly string[];
  readonly normalize: AddressNormalizer;
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
  private readonly runner: ImportRunner;

  constructor(
    private readonly repository: AudienceRepository,
    private readonly config: AudienceConfig,
    private readonly fetcher: AudienceUrlFetcher,
  ) {
    this.runner = new ImportRunner({
      rows: repository,
      staleMs: config.AUDIENCE_IMPORT_STALE_MS,
      logger: new Logger(AudienceImportService.name),
      kind: 'Audience',
      lands: 'rows',
    });
  }

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
    return this.runner.track(async () => {
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
    return this.runner.track(async () => {
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
            this.runner.throwIfShuttingDown();
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
    this.runner.throwIfShuttingDown();
    // The campaign first: another tenant's is 404 whatever the URL.
    const target = await this.prepare(campaignId, tenant);
    const parsed = parseAudienceUrl(url);
    const importId = await this.createImport(campaignId, source);
    const started = await this.summary(campaignId, importId, tenant);
    // importFile records (and logs) its own failures; a fetch that failed is recorded by the runner.
    this.runner.background(
      { importId, fields: { campaignId }, record: this.recorder(importId) },
      async () => {
        const body = await this.fetcher.open(parsed, this.runner.signal);
        await this.importFile(target, body, source, importId);
      },
    );
    return started;
  }

  /**
   * Copies rows chosen elsewhere (a contact list's members) into the campaign's audience, recorded
   * as one import of source `list` and answered when done. The campaign is checked first (the
   * tenant's, editable, a usable template), then `check` runs with it (the list's own refusals);
   * `copy` lands the rows and answers the final counters.
   */
  async importCopied(
    campaignId: string,
    tenant: TenantFilter,
    check: (campaign: AudienceCampaign) => Promise<void>,
    copy: (job: AudienceCopyJob) => Promise<ImportCounters>,
  ): Promise<ImportSummary> {
    const target = await this.prepare(campaignId, tenant);
    await check(target.campaign);
    return this.runner.track(async () => {
      const importId = await this.createImport(campaignId, 'list');
      let counters = NO_ROWS;
      let failure: unknown;
      try {
        counters = await copy({
          campaignId,
          importId,
          requiredVariables: target.variables,
          signal: this.runner.signal,
          progress: async (totals) => {
            counters = totals;
            await this.repository.updateProgress(importId, totals);
          },
        });
      } catch (error: unknown) {
        failure = error;
      }
      const record = this.recorder(importId);
      await this.runner.finish({ importId, counters, failure, record, fields: { campaignId } });
      return this.summary(campaignId, importId, tenant);
    });
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
    this.runner.start();
  }

  /** Stops running imports at their next chunk (they end FAILED, rows landed so far kept) and waits. */
  async onModuleDestroy(): Promise<void> {
    await this.runner.stop();
  }

  private async createImport(campaignId: string, source: ImportSource): Promise<string> {
    const importId = await this.repository.createImport(campaignId, source);
    this.runner.adopt(importId);
    return importId;
  }

  private recorder(importId: string): ImportRecorder {
    return (state, counters, error) => this.repository.finish(importId, state, counters, error);
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
    const read = await this.runner.readCsv(file, {
      layoutOf: (header) => this.layoutOf(header, target),
      open: async () => {
        const importId = givenImportId ?? (await this.createImport(target.campaign.id, source));
        return this.writer(target, importId, formatCsvRow);
      },
      normalize: target.normalize,
      maxBytes: this.config.AUDIENCE_MAX_BYTES,
      fileLabel: 'The audience file',
    });
    let { writer } = read;
    if (writer === undefined && givenImportId !== undefined) {
      writer = this.writer(target, givenImportId, formatCsvRow);
    }
    if (writer === undefined) {
      // Refused before any import existed (header, campaign gone): nothing to record.
      if (read.failure !== undefined) throw this.runner.publicError(read.failure);
      throw new Error('An audience file ended without a header and without a failure');
    }
    await this.finish(writer, read.failure);
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

  /** Lands what is left and records the outcome; a failure is rethrown once recorded. */
  private async finish<S>(writer: AudienceImportWriter<S>, failure: unknown): Promise<void> {
    const { importId, campaignId } = writer;
    await this.runner.finish({
      importId,
      writer,
      failure,
      record: this.recorder(importId),
      fields: { campaignId },
    });
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
