import { IsNotEmpty, IsOptional, IsString, Matches, MaxLength } from 'class-validator';

/** POST /_sim/credentials/:credentialId/inbound: a recipient's reply to deliver as the provider would. */
export class InboundReplyDto {
  /** The recipient's number in E.164 (`+4915112345678`). */
  @IsString() @Matches(/^\+[1-9]\d{6,14}$/, { message: 'from must be an E.164 number' }) from!: string;

  @IsString() @IsNotEmpty() @MaxLength(4096) text!: string;

  /** The business number replied to; the credential's sender by default. */
  @IsOptional() @IsString() @IsNotEmpty() @MaxLength(320) to?: string;
}
