import { IsEnum, IsInt, IsISO8601, IsOptional, IsString, Length, MaxLength, Min } from 'class-validator';
import { SubscriberAlertKind } from '../enums/subscriber-alert-kind.enum';

/** Raised when a subscriber is tombstoned, disabled by a 410, or brought back. */
export class SubscriberAlertV1 {
  @IsString()
  @Length(1, 64)
  subscriberId!: string;

  @IsString()
  @Length(1, 64)
  tenantId!: string;

  @IsEnum(SubscriberAlertKind)
  kind!: SubscriberAlertKind;

  @IsInt()
  @Min(0)
  failuresInWindow!: number;

  @IsInt()
  @Min(0)
  windowMs!: number;

  @IsOptional()
  @IsString()
  @MaxLength(1024)
  lastError?: string;

  @IsISO8601({ strict: true })
  at!: string;
}
