import { IsString, MaxLength, MinLength } from 'class-validator';

/** GET /v1/messages?idempotencyKey=: a single send of the caller's tenant, found by the producer's request id. */
export class FindMessageDto {
  @IsString() @MinLength(1) @MaxLength(160) idempotencyKey!: string;
}
