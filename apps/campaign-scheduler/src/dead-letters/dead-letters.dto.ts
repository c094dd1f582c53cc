import { ApiExample, ToBool, ToInt } from '@ums/platform';
import {
  ArrayMaxSize,
  ArrayMinSize,
  IsArray,
  IsBoolean,
  IsInt,
  IsOptional,
  IsString,
  Length,
  Max,
  Min,
} from 'class-validator';
import { IsDecimalId } from '../messages/decimal-id.validator';

/** Filters shared by the listing and a replay by filter. */
class DeadLetterFilterDto {
  /** The topic the entry was consumed from, as stored (with the namespace prefix, if one is set). */
  @IsOptional() @IsString() @Length(1, 255) sourceTopic?: string;

  @IsOptional() @IsString() @Length(1, 64) errorCode?: string;

  @IsOptional() @IsString() @Length(1, 255) consumerGroup?: string;
}

/** GET /v1/dead-letters: newest first, keyset-paginated by id. */
export class ListDeadLettersDto extends DeadLetterFilterDto {
  /** true: only entries replayed at least once; false: only entries never replayed. */
  @IsOptional() @ToBool() @IsBoolean() replayed?: boolean;

  @IsOptional() @ToInt() @IsInt() @Min(1) @Max(500) limit = 50;

  /** The `nextBefore` of the previous page. */
  @IsOptional() @IsDecimalId() before?: string;
}

export class DeadLetterParamsDto {
  @IsDecimalId() id!: string;
}

/**
 * POST /v1/dead-letters/replay: the entries named by `ids`, or those matching the filters (never
 * replayed ones only, unless `includeReplayed`), oldest first, at most `limit`.
 */
@ApiExample<ReplayDeadLettersDto>({
  sourceTopic: 'ums.send-requests.v1',
  errorCode: 'RETRIES_EXHAUSTED',
  limit: 100,
})
export class ReplayDeadLettersDto extends DeadLetterFilterDto {
  @IsOptional()
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(500)
  @IsDecimalId({ each: true })
  ids?: string[];

  @IsOptional() @IsBoolean() includeReplayed?: boolean;

  @IsOptional() @IsInt() @Min(1) @Max(10_000) limit?: number;
}
