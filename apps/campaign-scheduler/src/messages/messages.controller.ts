import { Controller, Get, Param, Query, StreamableFile } from '@nestjs/common';
import { Scope } from '@ums/contracts';
import { Requires } from '@ums/platform';
import { FindMessageDto } from './find-message.dto';
import { ListRunMessagesDto } from './list-run-messages.dto';
import { MessageFiltersDto } from './message-filters.dto';
import { MessageIdParamsDto, RunMessagesParamsDto } from './message-params.dto';
import type { MessageView, RunMessagePage } from './message.view';
import { MessagesService } from './messages.service';

/** Per-message status: a run's messages (JSON pages or a CSV export) and single messages. */
@Controller('v1')
export class MessagesController {
  constructor(private readonly messages: MessagesService) {}

  @Requires(Scope.MessagesRead)
  @Get('campaigns/:campaignId/runs/:runId/messages')
  list(@Param() params: RunMessagesParamsDto, @Query() query: ListRunMessagesDto): Promise<RunMessagePage> {
    return this.messages.listRunMessages(params.campaignId, params.runId, query);
  }

  @Requires(Scope.MessagesRead)
  @Get('campaigns/:campaignId/runs/:runId/messages/export.csv')
  async exportCsv(
    @Param() params: RunMessagesParamsDto,
    @Query() filters: MessageFiltersDto,
  ): Promise<StreamableFile> {
    const csv = await this.messages.exportRunMessages(params.campaignId, params.runId, filters);
    return new StreamableFile(csv, {
      type: 'text/csv; charset=utf-8',
      // The run id is digits only (validated), so the file name needs no escaping.
      disposition: `attachment; filename="run-${params.runId}-messages.csv"`,
    });
  }

  /** A single send by the producer's request id (its idempotency key). */
  @Requires(Scope.MessagesRead)
  @Get('messages')
  findByIdempotencyKey(@Query() query: FindMessageDto): Promise<MessageView> {
    return this.messages.findByIdempotencyKey(query.tenantId, query.idempotencyKey);
  }

  @Requires(Scope.MessagesRead)
  @Get('messages/:id')
  get(@Param() params: MessageIdParamsDto): Promise<MessageView> {
    return this.messages.getMessage(params.id);
  }
}
