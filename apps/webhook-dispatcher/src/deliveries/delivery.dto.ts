import { ApiExample, ToInt } from '@ums/platform';
import { IsIn, IsInt, IsISO8601, IsOptional, Matches, Max, Min } from 'class-validator';

const STATES = ['PENDING', 'DELIVERED', 'RETRYING', 'DEAD_LETTERED', 'MISSED'] as const;

/** GET /v1/subscribers/:id/deliveries: newest first, keyset on id. */
export class ListDeliveriesDto {
  @IsOptional()
  @IsIn(STATES, { message: `state must be one of ${STATES.join(', ')}` })
  state?: (typeof STATES)[number];

  @IsOptional() @ToInt() @IsInt() @Min(1) @Max(500) limit = 100;

  /** The `nextBefore` of the previous page. */
  @IsOptional() @Matches(/^\d{1,20}$/, { message: 'before must be a delivery id' }) before?: string;
}

/** POST /v1/subscribers/:id/replay: every delivered or dead-lettered delivery created since then. */
@ApiExample<ReplaySinceDto>({ since: '2026-11-24T00:00:00Z' })
export class ReplaySinceDto {
  @IsISO8601({ strict: true }, { message: 'since must be an ISO 8601 time' }) since!: string;
}
