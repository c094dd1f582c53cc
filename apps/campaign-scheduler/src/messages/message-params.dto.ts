import { IsString, MaxLength, MinLength } from 'class-validator';
import { IsDecimalId } from './decimal-id.validator';

/** Path of a run's messages: the run must belong to the campaign. */
export class RunMessagesParamsDto {
  @IsString() @MinLength(1) @MaxLength(64) campaignId!: string;

  @IsDecimalId() runId!: string;
}

export class MessageIdParamsDto {
  @IsDecimalId() id!: string;
}
