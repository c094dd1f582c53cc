import { Provider } from '@ums/contracts';
import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  IsArray,
  IsBoolean,
  IsEnum,
  IsInt,
  IsNotEmpty,
  IsNumber,
  IsOptional,
  IsString,
  IsUrl,
  Matches,
  Max,
  MaxLength,
  Min,
  ValidateNested,
} from 'class-validator';

export const CREDENTIAL_ID_PATTERN = /^[A-Za-z0-9._:-]{1,100}$/;
/** Sends per second a credential may be given; above this the simulator itself is the limit. */
export const MAX_CAPACITY_TPS = 1_000_000;
export const MAX_PERMANENT_FAILURES = 100_000;
const MAX_LATENCY_MS = 120_000;

/** An optional probability, 0..1. */
function IsRate(): PropertyDecorator {
  return (target: object, key: string | symbol): void => {
    for (const decorate of [IsOptional(), IsNumber(), Min(0), Max(1)]) decorate(target, key);
  };
}

/** Which provider account the path or body names (see docs/provider-shapes.md). */
export class SimulatedAccountDto {
  /** WhatsApp Cloud: the phone number id in the path. */
  @IsOptional() @IsString() @IsNotEmpty() @MaxLength(64) phoneNumberId?: string;
  /** WhatsApp Cloud: the business account id reported in webhooks (default: WABA-<phoneNumberId>). */
  @IsOptional() @IsString() @IsNotEmpty() @MaxLength(64) wabaId?: string;
  /** WhatsApp Cloud: display_phone_number in webhooks (default: the phone number id). */
  @IsOptional() @IsString() @IsNotEmpty() @MaxLength(32) displayPhoneNumber?: string;
  /** Twilio: the AccountSid in the path. */
  @IsOptional() @IsString() @IsNotEmpty() @MaxLength(64) accountSid?: string;
  /** Twilio: sender number or Messaging Service; Mitto: sender; SES: FromEmailAddress. */
  @IsOptional() @IsString() @IsNotEmpty() @MaxLength(320) from?: string;
  /** SES: the region in the SigV4 credential scope (any region when absent). */
  @IsOptional() @IsString() @Matches(/^[a-z]{2}(-[a-z]+)+-\d$/) region?: string;
}

export class LatencySettingsDto {
  @IsOptional() @IsInt() @Min(0) @Max(MAX_LATENCY_MS) minMs?: number;
  @IsOptional() @IsInt() @Min(0) @Max(MAX_LATENCY_MS) p50Ms?: number;
  @IsOptional() @IsInt() @Min(0) @Max(MAX_LATENCY_MS) p99Ms?: number;
}

export class CallbackSettingsDto {
  @IsOptional() @IsBoolean() enabled?: boolean;
  @IsRate() deliveredRate?: number;
  @IsRate() readRate?: number;
  @IsRate() failedRate?: number;
  @IsRate() duplicateRate?: number;
  @IsRate() outOfOrderRate?: number;
  /** Between one status and the next (sent after delayMs, delivered after 2x, read after 3x). */
  @IsOptional() @IsInt() @Min(0) @Max(600_000) delayMs?: number;
}

/** Everything about a credential except its provider: the body of PATCH, and the base of PUT. */
export class CredentialChangesDto {
  @IsOptional() @ValidateNested() @Type(() => SimulatedAccountDto) account?: SimulatedAccountDto;

  /** Bearer token, Twilio auth token, Mitto API key, SES "accessKeyId:secretAccessKey"; absent: any. */
  @IsOptional() @IsString() @IsNotEmpty() @MaxLength(512) secret?: string;

  /** Real capacity: sends beyond it in any 1-second window get the provider's throttling error. */
  @IsOptional() @IsInt() @Min(0) @Max(MAX_CAPACITY_TPS) capacityTps?: number;
  /** What the provider claims (informational, returned as given). */
  @IsOptional() @IsInt() @Min(0) @Max(MAX_CAPACITY_TPS) advertisedTps?: number;

  @IsOptional() @ValidateNested() @Type(() => LatencySettingsDto) latency?: LatencySettingsDto;

  @IsRate() error5xxRate?: number;
  @IsRate() rate429?: number;
  @IsRate() timeoutRate?: number;
  /** A timed-out send was still sent (counted, callbacks follow): the case that leaves UNKNOWN rows. */
  @IsOptional() @IsBoolean() timeoutDelivers?: boolean;

  /** Recipients (phone numbers as sent, or e-mail addresses) that always get the permanent error. */
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(MAX_PERMANENT_FAILURES)
  @IsString({ each: true })
  @MaxLength(320, { each: true })
  permanentFailures?: string[];

  @IsOptional()
  @IsUrl({ require_tld: false, require_protocol: true, protocols: ['http', 'https'] })
  @MaxLength(2048)
  callbackUrl?: string;
  /** Meta app secret, Twilio auth token, Mitto token or the native HMAC secret. */
  @IsOptional() @IsString() @IsNotEmpty() @MaxLength(512) callbackSecret?: string;

  @IsOptional() @ValidateNested() @Type(() => CallbackSettingsDto) callbacks?: CallbackSettingsDto;
}

/** PUT /_sim/credentials/:credentialId: the whole configuration; anything left out has its default. */
export class CredentialSettingsDto extends CredentialChangesDto {
  @IsEnum(Provider) provider!: Provider;
}

/** One entry of SIMULATOR_CREDENTIALS: a PUT body plus the credential id. */
export class CredentialEntryDto extends CredentialSettingsDto {
  @IsString() @Matches(CREDENTIAL_ID_PATTERN) credentialId!: string;
}
