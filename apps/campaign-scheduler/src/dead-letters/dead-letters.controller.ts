import { Body, Controller, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import { Scope } from '@ums/contracts';
import { Requires } from '@ums/platform';
import type { DeadLetterPage, DeadLetterView, ReplayResult } from './dead-letter.view';
import { DeadLetterParamsDto, ListDeadLettersDto, ReplayDeadLettersDto } from './dead-letters.dto';
import { DeadLettersService } from './dead-letters.service';

/** Poison and refused Kafka messages (`ums.dead-letters.v1`): list, inspect, replay. */
@Controller('v1/dead-letters')
export class DeadLettersController {
  constructor(private readonly deadLetters: DeadLettersService) {}

  @Requires(Scope.DeadLettersAdmin)
  @Get()
  list(@Query() query: ListDeadLettersDto): Promise<DeadLetterPage> {
    return this.deadLetters.list(query);
  }

  @Requires(Scope.DeadLettersAdmin)
  @Post('replay')
  @HttpCode(200)
  replay(@Body() dto: ReplayDeadLettersDto): Promise<ReplayResult> {
    return this.deadLetters.replay(dto);
  }

  @Requires(Scope.DeadLettersAdmin)
  @Get(':id')
  get(@Param() params: DeadLetterParamsDto): Promise<DeadLetterView> {
    return this.deadLetters.get(params.id);
  }
}
