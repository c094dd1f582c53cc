import { Body, Controller, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import {
  DEAD_LETTER_PAGE,
  DEAD_LETTER_REPLAY_RESULT,
  DEAD_LETTER_VIEW,
  DeadLetterErrorCode,
  Scope,
} from '@ums/contracts';
import { ApiAnswer, ApiErrors, Caller, type Principal, Requires } from '@ums/platform';
import type { DeadLetterPage, DeadLetterView, ReplayResult } from './dead-letter.view';
import { DeadLetterParamsDto, ListDeadLettersDto, ReplayDeadLettersDto } from './dead-letters.dto';
import { DeadLettersService } from './dead-letters.service';

/**
 * Poison and refused Kafka messages (`ums.dead-letters.v1`): list, inspect, replay. A tenant's principal
 * reaches only its tenant's entries; an operator without X-Ums-Tenant reaches every entry, those of no
 * known tenant included.
 */
@Controller('v1/dead-letters')
export class DeadLettersController {
  constructor(private readonly deadLetters: DeadLettersService) {}

  @Requires(Scope.DeadLettersAdmin)
  @ApiAnswer(DEAD_LETTER_PAGE)
  @Get()
  list(@Caller() principal: Principal, @Query() query: ListDeadLettersDto): Promise<DeadLetterPage> {
    return this.deadLetters.list(principal.tenantId, query);
  }

  @Requires(Scope.DeadLettersAdmin)
  @ApiAnswer(DEAD_LETTER_REPLAY_RESULT)
  @ApiErrors({ 400: [DeadLetterErrorCode.ReplaySelectionInvalid], 404: [DeadLetterErrorCode.NotFound] })
  @Post('replay')
  @HttpCode(200)
  replay(@Caller() principal: Principal, @Body() dto: ReplayDeadLettersDto): Promise<ReplayResult> {
    return this.deadLetters.replay(principal.tenantId, dto);
  }

  @Requires(Scope.DeadLettersAdmin)
  @ApiAnswer(DEAD_LETTER_VIEW)
  @ApiErrors({ 404: [DeadLetterErrorCode.NotFound] })
  @Get(':id')
  get(@Caller() principal: Principal, @Param() params: DeadLetterParamsDto): Promise<DeadLetterView> {
    return this.deadLetters.get(principal.tenantId, params.id);
  }
}
