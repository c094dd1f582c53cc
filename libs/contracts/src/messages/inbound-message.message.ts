import { IsBoolean, IsEnum, IsISO8601, IsOptional, IsString, Length, MaxLength } from 'class-validator';
import { Channel } from '../enums/channel.enum';

/** A reply or new message from a recipient, for downstream services and subscriber webhooks. */
export class InboundMessageV1 {
  @IsString()
  @Length(1, 200)
  eventId!: string;

  @IsString()
  @Length(1, 64)
  tenantId!: string;

  @IsString()
  @Length(1, 64)
  credentialId!: string;

  @IsEnum(Channel)
  channel!: Channel;

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

  /** True when the text is an opt-out keyword (STOP, UNSUBSCRIBE, ...): the address is now opted out. */
  @IsBoolean()
  optOut!: boolean;

  /**
   * True when the text is an opt-in keyword (START, UNSTOP; on Twilio SMS also YES): any opt-out of the
   * address on this channel is lifted. Absent on events published before the field existed: read it as false.
   */
  @IsOptional()
  @IsBoolean()
  optIn?: boolean;

  @IsISO8601({ strict: true })
  occurredAt!: string;
}
