import { Injectable, Logger, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import {
  AudienceErrorCode,
  ContactListErrorCode,
  type ContactListImportSource,
  type ContactListImportSummary,
  type ContactListRejectPage,
  type ContactListView,
} from '@ums/contracts';
import { addressNormalizerFor, analyzeAudienceHeader, type AudienceLayout, phoneCountry } from '@ums/domain';
import { InvalidInputError, NotFoundError, type TenantFilter } from '@ums/platform';
import { AudienceConfig } from '../audience/audience.config';
import { formatCsvRow } from '../audience/audience-csv.reader';
import { AudienceImportWriter } from '../audience/audience-import.writer';
import { AudienceUrlFetcher, parseAudienceUrl } from '../audience/audience-url.fetcher';
import { type ImportRecorder, ImportRunner } from '../audience/import.runner';
import { ContactListImportsRepository } from './contact-list-imports.repository';
import { listNotFound } from './contact-lists.service';
import { ContactListsRepository } from './contact-lists.repository';

const FIRST_REJECTS = 20;

/**
 * Imports members into a contact list from a CSV upload or a file URL, read and validated as a
 * campaign's audience file is (the same reader, header and row rules, writer and limits): the
 * address column of the list's channel, every other column a variable (none is required: a list has
 * no template; using it in a campaign checks the template's). Rejected lines are stored with their
 * line and reason. RUNNING imports are kept alive and, when their process dies, failed after
 * AUDIENCE_IMPORT_STALE_MS, as audience imports are.
 */
@Injectable()
export class ContactListImportService implements OnModuleInit, OnModuleDestroy {
  private readonly runner: ImportRunner;

  constructor(
    private readonly lists: ContactListsRepository,
    private readonly imports: ContactListImportsRepository,
    private readonly config: AudienceConfig,
    private readonly fetcher: AudienceUrlFetcher,
  ) {
    this.runner = new ImportRunner({
      rows: imports,
      staleMs: config.AUDIENCE_IMPORT_STALE_MS,
      logger: new Logger(ContactListImportService.name),
      kind: 'Contact list',
      lands: 'members',
    });
  }

  /** Streams an upload into a new import and answers with its summary once done. */
  async importCsv(
    listId: string,
    tenant: TenantFilter,
    openFile: () => Promise<AsyncIterable<Buffer>>,
  ): Promise<ContactListImportSummary> {
    const list = await this.existingList(listId, tenant);
    const importId = await this.runner.track(async () => {
      const file = await openFile();
      const id = await this.createImport(list.id, 'csv');
      await this.importFile(list, id, file);
      return id;
    });
    return this.summary(listId, importId, tenant);
  }

  /** Creates the import and fetches the file in the background; answers at once (RUNNING). */
  async startUrlImport(listId: string, tenant: TenantFilter, url: string): Promise<ContactListImportSummary> {
    this.runner.throwIfShuttingDown();
    const list = await this.existingList(listId, tenant);
    const parsed = parseAudienceUrl(url);
    const importId = await this.createImport(list.id, 'url');
    const started = await this.summary(listId, importId, tenant);
    const record = this.recorder(list.id, importId);
    this.runner.background({ importId, fields: { listId }, record }, async () => {
      const body = await this.fetcher.open(parsed, this.runner.signal);
      await this.importFile(list, importId, body);
    });
    return started;
  }

  async summary(listId: string, importId: string, tenant: TenantFilter): Promise<ContactListImportSummary> {
    const view = await this.imports.findImport(listId, importId, tenant);
    if (view === undefined) {
      await this.existingList(listId, tenant);
      throw new NotFoundError(
        ContactListErrorCode.ImportNotFound,
        `Contact list ${listId} has no import ${importId}`,
      );
    }
    return { ...view, firstRejects: await this.imports.firstRejects(importId, FIRST_REJECTS) };
  }

  async rejects(
    listId: string,
    importId: string,
    tenant: TenantFilter,
    page: { after: number; limit: number },
  ): Promise<ContactListRejectPage> {
    await this.summary(listId, importId, tenant);
    const items = await this.imports.rejects(listId, importId, tenant, {
      afterLine: page.after,
      limit: page.limit,
    });
    const last = items[items.length - 1];
    return { items, nextAfter: items.length === page.limit && last !== undefined ? last.line : null };
  }

  onModuleInit(): void {
    this.runner.start();
  }

  async onModuleDestroy(): Promise<void> {
    await this.runner.stop();
  }

  private async existingList(listId: string, tenant: TenantFilter): Promise<ContactListView> {
    const list = await this.lists.find(listId, tenant);
    if (list === undefined) throw listNotFound(listId);
    return list;
  }

  private async createImport(listId: string, source: ContactListImportSource): Promise<string> {
    const importId = await this.imports.createImport(listId, source);
    if (importId === undefined) throw listNotFound(listId);
    this.runner.adopt(importId);
    return importId;
  }

  /** Records the outcome and recounts the list's members. */
  private recorder(listId: string, importId: string): ImportRecorder {
    return async (state, counters, error) => {
      await this.imports.finish(importId, state, counters, error);
      await this.imports.recount(listId);
    };
  }

  /** Reads the file into the import (the first non-blank row is the header) and records the outcome. */
  private async importFile(
    list: ContactListView,
    importId: string,
    file: AsyncIterable<Buffer>,
  ): Promise<void> {
    const writer = new AudienceImportWriter<readonly string[]>(
      this.imports,
      list.id,
      importId,
      this.config.AUDIENCE_INSERT_CHUNK_ROWS,
      formatCsvRow,
    );
    const country = list.defaultCountry === null ? undefined : phoneCountry(list.defaultCountry);
    const { failure } = await this.runner.readCsv(file, {
      layoutOf: (header) => layoutOf(header, list),
      open: () => writer,
      normalize: addressNormalizerFor(list.channel, country),
      maxBytes: this.config.AUDIENCE_MAX_BYTES,
      fileLabel: 'The file',
    });
    const record = this.recorder(list.id, importId);
    await this.runner.finish({ importId, writer, failure, record, fields: { listId: list.id } });
  }
}

/** The header of a list file: the channel's address column, any other columns as variables. */
function layoutOf(header: readonly string[], list: ContactListView): AudienceLayout {
  const analysis = analyzeAudienceHeader(header, list.channel, []);
  if (analysis.ok) return analysis.layout;
  const problems = analysis.code === AudienceErrorCode.HeaderInvalid ? analysis.problems : analysis.missing;
  throw new InvalidInputError(
    AudienceErrorCode.HeaderInvalid,
    `The header line is not usable: ${problems.join('; ')}`,
    problems.map((reason) => ({ field: 'header', reason })),
  );
}
