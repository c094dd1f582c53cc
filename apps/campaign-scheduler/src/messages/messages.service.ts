import { Injectable, Logger } from '@nestjs/common';
import { NotFoundError, type TenantFilter } from '@ums/platform';
import type { Readable } from 'node:stream';
import { MessageErrorCode, RunErrorCode } from '@ums/contracts';
import type { ListRunMessagesDto } from './list-run-messages.dto';
import type { MessageFiltersDto } from './message-filters.dto';
import type { MessageView, RunMessagePage, RunMessageView } from './message.view';
import { MessagesRepository, type RunMessageFilters } from './messages.repository';
import { runMessagesCsv } from './run-messages-csv';

/** Rows per keyset page of the CSV export: few round trips, bounded memory. */
export const EXPORT_PAGE_SIZE = 5000;

/**
 * Per-message status of runs and single sends (read side only; senders write the rows). Every read
 * takes the caller's tenant (null: every tenant): another tenant's run or message answers 404 exactly
 * as a missing one does.
 */
@Injectable()
export class MessagesService {
  private readonly logger = new Logger('messages');

  constructor(private readonly repository: MessagesRepository) {}

  async listRunMessages(
    tenantId: TenantFilter,
    campaignId: string,
    runId: string,
    query: ListRunMessagesDto,
  ): Promise<RunMessagePage> {
    await this.requireRun(tenantId, campaignId, runId);
    // One row more than asked tells whether another page exists.
    const rows = await this.repository.listRunPage(
      tenantId,
      runId,
      filtersOf(query),
      query.after,
      query.limit + 1,
    );
    const items = rows.slice(0, query.limit);
    const last = items.at(-1);
    return { items, nextAfter: rows.length > query.limit && last !== undefined ? last.id : null };
  }

  /** Checks the run first (so a 404 is a proper answer), then streams the CSV page by page. */
  async exportRunMessages(
    tenantId: TenantFilter,
    campaignId: string,
    runId: string,
    filters: MessageFiltersDto,
  ): Promise<Readable> {
    await this.requireRun(tenantId, campaignId, runId);
    const repository = this.repository;
    const selection = filtersOf(filters);
    async function* pages(): AsyncGenerator<RunMessageView[]> {
      let after: string | undefined;
      for (;;) {
        const page = await repository.listRunPage(tenantId, runId, selection, after, EXPORT_PAGE_SIZE);
        if (page.length > 0) yield page;
        const last = page.at(-1);
        if (page.length < EXPORT_PAGE_SIZE || last === undefined) return;
        after = last.id;
      }
    }
    return runMessagesCsv(pages(), (error) => {
      const code = (error as Error & { code?: unknown }).code;
      if (code === 'ERR_STREAM_PREMATURE_CLOSE') {
        this.logger.warn({ campaignId, runId }, 'Message export abandoned by the client');
      } else {
        this.logger.error(
          { err: error, campaignId, runId },
          'Message export failed part way; response cut off',
        );
      }
    });
  }

  async getMessage(tenantId: TenantFilter, id: string): Promise<MessageView> {
    const message = await this.repository.findById(tenantId, id);
    if (message === undefined) {
      throw new NotFoundError(MessageErrorCode.NotFound, `No message ${id}`, { messageId: id });
    }
    return message;
  }

  async findByIdempotencyKey(tenantId: string, idempotencyKey: string): Promise<MessageView> {
    const message = await this.repository.findByIdempotencyKey(tenantId, idempotencyKey);
    if (message === undefined) {
      throw new NotFoundError(
        MessageErrorCode.NotFound,
        `No message of tenant ${tenantId} for that idempotency key`,
        {
          tenantId,
          idempotencyKey,
        },
      );
    }
    return message;
  }

  private async requireRun(tenantId: TenantFilter, campaignId: string, runId: string): Promise<void> {
    if (!(await this.repository.runBelongsToCampaign(tenantId, runId, campaignId))) {
      throw new NotFoundError(RunErrorCode.NotFound, `Campaign ${campaignId} has no run ${runId}`, {
        campaignId,
        runId,
      });
    }
  }
}

function filtersOf(dto: MessageFiltersDto): RunMessageFilters {
  return {
    ...(dto.state !== undefined ? { states: dto.state } : {}),
    ...(dto.recipient !== undefined ? { recipient: dto.recipient } : {}),
  };
}
