import { ToInt } from '@ums/platform';
import { IsInt, IsOptional, IsString, Matches, Max, MaxLength, Min } from 'class-validator';
import { CredentialLimits, TENANT_ID_PATTERN } from './credential-limits';

/** GET /v1/credentials: one tenant's credentials, keyset-paginated by id. */
export class ListCredentialsDto {
  @IsString()
  @MaxLength(CredentialLimits.tenantIdMaxLength)
  @Matches(TENANT_ID_PATTERN, { message: 'tenantId must be letters, digits or . _ : -' })
  tenantId!: string;

  @IsOptional() @ToInt() @IsInt() @Min(1) @Max(500) limit = 100;

  /** The `nextAfter` of the previous page. */
  @IsOptional() @IsString() @MaxLength(64) after?: string;
}
