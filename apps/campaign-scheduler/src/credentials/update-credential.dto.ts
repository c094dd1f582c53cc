import { ApiExample, JsonSchemaRule } from '@ums/platform';
import { IsInt, IsNotEmpty, IsString, Max, MaxLength, Min, MinLength, ValidateIf } from 'class-validator';
import { CredentialLimits } from './credential-limits';
import { IsSettingsRecord } from './settings-record.validator';

/** Validates the field only when present; unlike IsOptional, null is still refused. */
const IfPresent = (): PropertyDecorator => ValidateIf((_dto: object, value: unknown) => value !== undefined);
/** Validates the field only when present and not null (null clears it). */
const IfSet = (): PropertyDecorator =>
  ValidateIf((_dto: object, value: unknown) => value !== undefined && value !== null);

/**
 * PATCH /v1/credentials/:id: every field optional; tenant, provider and channel are fixed once
 * created (campaigns point at the credential). `secret: null`, `callbackSecret: null`,
 * `webhookVerifyToken: null` and `tenantRateCapPerSec: null` clear them. A change of
 * `config.baseUrl` needs `secret` in the same request.
 */
@JsonSchemaRule({
  fields: [
    'name',
    'config',
    'secret',
    'callbackSecret',
    'webhookVerifyToken',
    'rateCeilingPerSec',
    'rateFloorPerSec',
    'tenantRateCapPerSec',
  ],
  nullable: ['secret', 'callbackSecret', 'webhookVerifyToken', 'tenantRateCapPerSec'],
})
@ApiExample<UpdateCredentialDto>({ rateCeilingPerSec: 200, tenantRateCapPerSec: null })
export class UpdateCredentialDto {
  @IfPresent() @IsString() @IsNotEmpty() @MaxLength(CredentialLimits.nameMaxLength) name?: string;

  /** Replaces the whole settings object; without `baseUrl` it keeps the current endpoint. */
  @IfPresent() @IsSettingsRecord() config?: Record<string, string | number | boolean>;

  @IfSet() @IsString() @MinLength(1) @MaxLength(CredentialLimits.secretMaxLength) secret?: string | null;

  @IfSet()
  @IsString()
  @MinLength(1)
  @MaxLength(CredentialLimits.secretMaxLength)
  callbackSecret?: string | null;

  @IfSet()
  @IsString()
  @MinLength(1)
  @MaxLength(CredentialLimits.verifyTokenMaxLength)
  webhookVerifyToken?: string | null;

  @IfPresent() @IsInt() @Min(1) @Max(CredentialLimits.maxRatePerSec) rateCeilingPerSec?: number;

  @IfPresent() @IsInt() @Min(1) @Max(CredentialLimits.maxRatePerSec) rateFloorPerSec?: number;

  @IfSet() @IsInt() @Min(1) @Max(CredentialLimits.maxRatePerSec) tenantRateCapPerSec?: number | null;
}
