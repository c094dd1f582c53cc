import { Channel, Provider } from '@ums/contracts';
import { ApiExample } from '@ums/platform';
import {
  IsEnum,
  IsInt,
  IsNotEmpty,
  IsOptional,
  IsString,
  Max,
  MaxLength,
  Min,
  MinLength,
} from 'class-validator';
import { CredentialLimits } from './credential-limits';
import { IsSettingsRecord } from './settings-record.validator';

/**
 * POST /v1/credentials, for the caller's tenant (never named in the body). The provider/channel pair,
 * floor <= ceiling and the provider's rules are checked by the service.
 */
@ApiExample<CreateCredentialDto>({
  name: 'Twilio EU',
  provider: Provider.Twilio,
  channel: Channel.Sms,
  config: { accountSid: 'AC0123456789abcdef0123456789abcdef', from: '+4915112345678' },
  secret: 'twilio-auth-token',
  callbackSecret: 'twilio-auth-token',
  rateCeilingPerSec: 100,
  rateFloorPerSec: 5,
})
export class CreateCredentialDto {
  @IsString() @IsNotEmpty() @MaxLength(CredentialLimits.nameMaxLength) name!: string;

  @IsEnum(Provider) provider!: Provider;

  @IsEnum(Channel) channel!: Channel;

  /**
   * Non-secret settings (account ids, sender, region), checked against the provider's schema and
   * returned as given. `baseUrl` must be one of the deployment's endpoints for the provider; when
   * omitted, the first one without a wildcard is stored.
   */
  @IsOptional() @IsSettingsRecord() config?: Record<string, string | number | boolean>;

  /** API token, auth token or password: sealed before storage, never returned. */
  @IsOptional()
  @IsString()
  @MinLength(1)
  @MaxLength(CredentialLimits.secretMaxLength)
  secret?: string;

  /** What the provider signs its callbacks with (Meta app secret, Mitto token, simulator HMAC key); sealed, never returned. */
  @IsOptional()
  @IsString()
  @MinLength(1)
  @MaxLength(CredentialLimits.secretMaxLength)
  callbackSecret?: string;

  /** Meta's `hub.verify_token` (whatsapp-cloud only); sealed, never returned. */
  @IsOptional()
  @IsString()
  @MinLength(1)
  @MaxLength(CredentialLimits.verifyTokenMaxLength)
  webhookVerifyToken?: string;

  @IsInt() @Min(1) @Max(CredentialLimits.maxRatePerSec) rateCeilingPerSec!: number;

  @IsInt() @Min(1) @Max(CredentialLimits.maxRatePerSec) rateFloorPerSec!: number;

  @IsOptional() @IsInt() @Min(1) @Max(CredentialLimits.maxRatePerSec) tenantRateCapPerSec?: number;
}
