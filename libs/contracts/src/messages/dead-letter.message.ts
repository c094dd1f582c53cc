import { IsIn, IsInt, IsISO8601, IsOptional, IsString, Length, MaxLength, Min } from 'class-validator';
import { IsStringRecord } from '../validation/is-string-record.validator';

/**
 * A message a consumer could not process: refused by its schema, or out of retries. Keeps the
 * original bytes and where they came from, so an operator can inspect and replay it.
 */
export class DeadLetterV1 {
  @IsString()
  @Length(1, 249)
  sourceTopic!: string;

  @IsInt()
  @Min(0)
  sourcePartition!: number;

  @IsString()
  @Length(1, 20)
  sourceOffset!: string;

  @IsString()
  @Length(1, 200)
  consumerGroup!: string;

  @IsOptional()
  @IsString()
  @MaxLength(1024)
  key?: string;

  /** The original value: utf8 text when it was valid UTF-8, else base64. */
  @IsOptional()
  @IsString()
  value?: string;

  @IsIn(['utf8', 'base64'])
  valueEncoding!: 'utf8' | 'base64';

  @IsStringRecord(64, 4096)
  headers!: Record<string, string>;

  @IsString()
  @Length(1, 64)
  errorCode!: string;

  @IsString()
  @MaxLength(8192)
  reason!: string;

  @IsInt()
  @Min(0)
  attempts!: number;

  @IsISO8601({ strict: true })
  failedAt!: string;
}
