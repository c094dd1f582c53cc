// class-transformer's @Type reads design metadata at class definition.
import 'reflect-metadata';
import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  ArrayMinSize,
  IsArray,
  IsDefined,
  IsEnum,
  IsISO31661Alpha2,
  IsISO8601,
  IsNotEmpty,
  IsOptional,
  IsString,
  IsUrl,
  Length,
  MaxLength,
  ValidateIf,
  ValidateNested,
} from 'class-validator';
import { Channel } from '../enums/channel.enum';
import { MessageContentV1 } from './message-content.message';
import { RecipientV1 } from './recipient.message';

export enum SendRequestKind {
  /** One transactional message: goes to the priority lane. */
  Single = 'single',
  /** A campaign created from the request: audience by URL or inline. */
  Bulk = 'bulk',
}

/** A producer's request to send, published on the send-requests topic. */
export class SendRequestV1 {
  /** The producer's idempotency key: the same requestId is accepted once. */
  @IsString()
  @Length(1, 128)
  requestId!: string;

  @IsEnum(SendRequestKind)
  kind!: SendRequestKind;

  @IsString()
  @Length(1, 64)
  tenantId!: string;

  @IsEnum(Channel)
  channel!: Channel;

  @IsString()
  @Length(1, 64)
  credentialId!: string;

  @IsDefined()
  @ValidateNested()
  @Type(() => MessageContentV1)
  content!: MessageContentV1;

  @ValidateIf((o: SendRequestV1) => o.kind === SendRequestKind.Single)
  @IsDefined()
  @ValidateNested()
  @Type(() => RecipientV1)
  recipient?: RecipientV1;

  @ValidateIf((o: SendRequestV1) => o.kind === SendRequestKind.Bulk)
  @IsString()
  @IsNotEmpty()
  @MaxLength(200)
  campaignName?: string;

  @ValidateIf((o: SendRequestV1) => o.kind === SendRequestKind.Bulk && o.recipients === undefined)
  @IsUrl({ protocols: ['https', 'http'], require_tld: false, require_protocol: true })
  audienceUrl?: string;

  @ValidateIf((o: SendRequestV1) => o.kind === SendRequestKind.Bulk && o.audienceUrl === undefined)
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(10_000)
  @ValidateNested({ each: true })
  @Type(() => RecipientV1)
  recipients?: RecipientV1[];

  /** Default country for phone numbers written without a country code. */
  @IsOptional()
  @IsISO31661Alpha2()
  defaultCountry?: string;

  /** Send at this time instead of now (bulk only). */
  @IsOptional()
  @IsISO8601({ strict: true })
  sendAt?: string;

  @IsISO8601({ strict: true })
  requestedAt!: string;
}
