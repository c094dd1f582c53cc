import { Public } from '@ums/platform';
import { Controller, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import { CallbackDispatcher } from '../callbacks/callback-dispatcher.service';
import { MessageRecords } from '../records/message-records.service';
import { simulatorNow } from '../simulator-clock';
import { StatsQueryDto } from './stats-query.dto';
import { type SendCounts, StatsService } from './stats.service';

/** What the simulator did: tests assert on these (no duplicates, capacity kept, callbacks sent). */
@Public('the provider simulator is a test tool; deployments that run it keep it off public networks')
@Controller('_sim')
export class StatsController {
  constructor(
    private readonly stats: StatsService,
    private readonly callbacks: CallbackDispatcher,
    private readonly records: MessageRecords,
  ) {}

  /** One credential's counts (?credentialId=), or all credentials together. */
  @Get('stats')
  get(@Query() query: StatsQueryDto): Record<string, unknown> {
    return {
      ...this.stats.snapshot(query.credentialId, simulatorNow()),
      callbacks: { ...this.callbacks.countsFor(query.credentialId), pending: this.callbacks.pendingCount },
    };
  }

  /** How often one of our message ids was accepted, and how many requests named it. */
  @Get('sends/:messageId')
  sends(@Param('messageId') messageId: string): SendCounts {
    return this.stats.sends(messageId);
  }

  /** Forgets counts, pending callbacks and accepted sends of one credential or of all; configuration stays. */
  @Post('reset')
  @HttpCode(204)
  reset(@Query() query: StatsQueryDto): void {
    this.stats.reset(query.credentialId);
    this.callbacks.reset(query.credentialId);
    this.records.reset(query.credentialId);
  }
}
