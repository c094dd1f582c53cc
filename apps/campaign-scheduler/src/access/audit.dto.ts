import { Type } from 'class-transformer';
import { IsInt, IsISO8601, IsOptional, Length, Matches, Max, Min } from 'class-validator';

export class ListAuditEventsDto {
  @IsOptional() @Type(() => Number) @IsInt() @Min(1) @Max(500) limit = 100;

  /** Newest first: the page after the event with this id. */
  @IsOptional() @Matches(/^\d{1,20}$/, { message: 'before must be an audit event id' }) before?: string;

  /** One action exactly, e.g. `POST /v1/campaigns/:campaignId/:action`. */
  @IsOptional()
  @Length(1, 200)
  @Matches(/^[A-Z]+ \/[^\s]*$/, { message: 'action must read METHOD /path' })
  action?: string;

  /** One principal: a key id, `operator`, or a JWT subject. */
  @IsOptional() @Length(1, 200) principalId?: string;

  @IsOptional()
  @IsISO8601({ strict: true, strictSeparator: true })
  @Matches(/(Z|[+-]\d{2}:\d{2})$/, { message: 'since must carry a UTC offset (Z or +hh:mm)' })
  since?: string;
}
