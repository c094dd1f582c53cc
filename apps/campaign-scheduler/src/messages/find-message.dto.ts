import { IsString, MaxLength, MinLength } from 'class-validator';

/** GET /v1/messages?tenantId=&idempotencyKey=: a single send, found by the producer's request id. */
export class FindMessageDto {
  @IsString() @MinLength(1) @MaxLength(64) tenantId!: string;

  @IsString() @MinLength(1) @MaxLength(160) idempotencyKey!: string;
}
