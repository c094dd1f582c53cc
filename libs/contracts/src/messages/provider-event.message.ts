// class-transformer's @Type reads design metadata at class definition.
import 'reflect-metadata';
import { Type } from 'class-transformer';
import {
  IsBoolean,
  IsDefined,
  IsEnum,
  IsIn,
  IsISO8601,
  IsNotEmpty,
  IsOptional,
  IsString,
  Length,
  Matches,
  MaxLength,
  ValidateIf,
  ValidateNested,
} from 'class-validator';
import { FailureReason } from '../enums/failure-reason.enum';
import { MessageStatus } from '../enums/message-status.enum';
import { Provider } from '../enums/provider.enum';

export enum ProviderEventKind {
  Status = 'status',
  Inbound = 'inbound',
}

/** Statuses a provider can report; the rest of MessageStatus is ours alone. */
export const ProviderReportedStatuses = [
  MessageStatus.Sent,
  MessageStatus.Delivered,
  MessageStatus.Read,
  MessageStatus.Failed,
] as const;
export type ProviderReportedStatus = (typeof ProviderReportedStatuses)[number];

export class ProviderStatusV1 {
  /** Our message id when the provider echoes it back (callback data, status URL). */
  @IsOptional()
  @Matches(/^\d{1,20}$/, { message: 'messageId must be a decimal id' })
  messageId?: string;

  @IsString()
  @Length(1, 256)
  providerMessageId!: string;

  @IsIn(ProviderReportedStatuses)
  status!: ProviderReportedStatus;

  @IsOptional()
  @IsEnum(FailureReason)
  reason?: FailureReason;

  @IsOptional()
  @IsString()
  @MaxLength(64)
  errorCode?: string;

  @IsOptional()
  @IsString()
  @MaxLength(1024)
  errorText?: string;

  @IsISO8601({ strict: true })
  occurredAt!: string;
}

export class ProviderInboundV1 {
  @IsString()
  @Length(1, 320)
  from!: string;

  @IsString()
  @Length(1, 320)
  to!: string;

  @IsOptional()
  @IsString()
  @MaxLength(65_536)
  text?: string;

  @IsOptional()
  @IsString()
  @MaxLength(2048)
  mediaRef?: string;

  @IsOptional()
  @IsString()
  @MaxLength(128)
  mediaType?: string;

  @IsString()
  @Length(1, 256)
  providerMessageId!: string;

  /** True when the text is an opt-out keyword (STOP, UNSUBSCRIBE, ...). */
  @IsBoolean()
  optOut!: boolean;

  @IsISO8601({ strict: true })
  occurredAt!: string;
}

/** A verified, normalized provider callback item, published by webhook-ingest. */
export class ProviderEventV1 {
  /** Stable per callback item, so redelivered callbacks are recognised. */
  @IsString()
  @Length(1, 200)
  eventId!: string;

  @IsEnum(ProviderEventKind)
  kind!: ProviderEventKind;

  @IsEnum(Provider)
  provider!: Provider;

  @IsString()
  @IsNotEmpty()
  @MaxLength(64)
  credentialId!: string;

  @ValidateIf((o: ProviderEventV1) => o.kind === ProviderEventKind.Status)
  @IsDefined()
  @ValidateNested()
  @Type(() => ProviderStatusV1)
  status?: ProviderStatusV1;

  @ValidateIf((o: ProviderEventV1) => o.kind === ProviderEventKind.Inbound)
  @IsDefined()
  @ValidateNested()
  @Type(() => ProviderInboundV1)
  inbound?: ProviderInboundV1;

  @IsISO8601({ strict: true })
  receivedAt!: string;
}
