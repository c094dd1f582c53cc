// class-transformer's @Type reads design metadata at class definition.
import 'reflect-metadata';
import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  ArrayMinSize,
  IsArray,
  IsEnum,
  IsInt,
  IsISO8601,
  IsNotEmpty,
  IsOptional,
  IsString,
  Length,
  Matches,
  Max,
  MaxLength,
  Min,
  ValidateNested,
} from 'class-validator';
import { Channel } from '../enums/channel.enum';
import { IsStringRecord } from '../validation/is-string-record.validator';
import { MessageContentV1 } from './message-content.message';

/**
 * A campaign's priority (campaigns.priority, chk_campaigns_priority): its weight in its credential's
 * fair share between campaigns and the order of due runs. Campaigns without one have the default.
 */
export const CAMPAIGN_PRIORITY = { min: 1, max: 10, default: 1 } as const;

export enum SendLane {
  Bulk = 'bulk',
  Priority = 'priority',
}

/** One message of a batch: our message id (the claim and idempotency key) and its recipient. */
export class BatchItemV1 {
  @Matches(/^\d{1,20}$/, { message: 'messageId must be a decimal id' })
  messageId!: string;

  @IsString()
  @IsNotEmpty()
  @MaxLength(320)
  recipient!: string;

  @IsOptional()
  @IsStringRecord(50, 1024)
  variables?: Record<string, string>;
}

/**
 * Messages to send with one credential. Campaign batches (about 100 items) come from the expander;
 * single sends are batches of one on the priority lane with inline content. Retry tiers carry the
 * same shape, holding only the items still to retry.
 */
export class MessageBatchV1 {
  @IsString()
  @Length(1, 128)
  batchId!: string;

  @IsEnum(SendLane)
  lane!: SendLane;

  @IsString()
  @Length(1, 64)
  tenantId!: string;

  /** Campaign id, or the request id for a single send (the partition key either way). */
  @IsString()
  @Length(1, 64)
  campaignId!: string;

  @IsOptional()
  @Matches(/^\d{1,20}$/, { message: 'runId must be a decimal id' })
  runId?: string;

  @IsInt()
  @Min(0)
  seq!: number;

  @IsInt()
  @Min(0)
  leaseEpoch!: number;

  @IsString()
  @Length(1, 64)
  credentialId!: string;

  /**
   * The campaign's priority (CAMPAIGN_PRIORITY, 1..10) as the expander last read it: its weight in
   * the credential's fair share between campaigns. Absent (batches of older expanders, single sends)
   * counts as the default, 1.
   */
  @IsOptional()
  @IsInt()
  @Min(CAMPAIGN_PRIORITY.min)
  @Max(CAMPAIGN_PRIORITY.max)
  priority?: number;

  @IsEnum(Channel)
  channel!: Channel;

  /** Inline content for single sends; campaign batches use the campaign's template. */
  @IsOptional()
  @ValidateNested()
  @Type(() => MessageContentV1)
  content?: MessageContentV1;

  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(1000)
  @ValidateNested({ each: true })
  @Type(() => BatchItemV1)
  items!: BatchItemV1[];

  @IsISO8601({ strict: true })
  createdAt!: string;
}
