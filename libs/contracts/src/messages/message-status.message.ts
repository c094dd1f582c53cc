import {
  IsEnum,
  IsISO8601,
  IsNotEmpty,
  IsOptional,
  IsString,
  Length,
  Matches,
  MaxLength,
} from 'class-validator';
import { Channel } from '../enums/channel.enum';
import { FailureReason } from '../enums/failure-reason.enum';
import { MessageStatus } from '../enums/message-status.enum';

/** A change of one message's state, for downstream services and subscriber webhooks. */
export class MessageStatusV1 {
  /** Unique per change; subscribers see it as `webhook-id`. */
  @IsString()
  @Length(1, 200)
  eventId!: string;

  @Matches(/^\d{1,20}$/, { message: 'messageId must be a decimal id' })
  messageId!: string;

  @IsString()
  @Length(1, 64)
  tenantId!: string;

  /**
   * The campaign id; for a single send, `snd_` and the first 40 characters of the unpadded base64url
   * SHA-256 of `<tenantId>\u0000<requestId>` (also its partition key), so a producer can find the
   * events of its request.
   */
  @IsString()
  @Length(1, 64)
  campaignId!: string;

  @IsOptional()
  @Matches(/^\d{1,20}$/, { message: 'runId must be a decimal id' })
  runId?: string;

  @IsEnum(Channel)
  channel!: Channel;

  @IsString()
  @IsNotEmpty()
  @MaxLength(320)
  recipient!: string;

  @IsEnum(MessageStatus)
  status!: MessageStatus;

  @IsOptional()
  @IsEnum(MessageStatus)
  previousStatus?: MessageStatus;

  @IsOptional()
  @IsString()
  @MaxLength(256)
  providerMessageId?: string;

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
