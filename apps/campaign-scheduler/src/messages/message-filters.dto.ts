import { MessageStatus } from '@ums/contracts';
import { Transform } from 'class-transformer';
import { ArrayMinSize, IsIn, IsOptional, IsString, MaxLength, MinLength } from 'class-validator';

/** `state=FAILED,UNKNOWN` (or the parameter repeated) as a de-duplicated list. */
function toStateList({ value }: { value: unknown }): unknown {
  const parts = Array.isArray(value) ? value : [value];
  if (!parts.every((part): part is string => typeof part === 'string')) return value;
  return [
    ...new Set(
      parts
        .flatMap((part) => part.split(','))
        .map((part) => part.trim())
        .filter((part) => part !== ''),
    ),
  ];
}

/** Filters shared by the run message listing and its CSV export. */
export class MessageFiltersDto {
  @IsOptional()
  @Transform(toStateList)
  @ArrayMinSize(1, { message: 'state must list at least one state' })
  @IsIn(Object.values(MessageStatus), {
    each: true,
    message: `state must be a comma-separated list of ${Object.values(MessageStatus).join(', ')}`,
  })
  state?: MessageStatus[];

  /** Exact address, as stored on the message. */
  @IsOptional() @IsString() @MinLength(1) @MaxLength(320) recipient?: string;
}
