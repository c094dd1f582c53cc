import { Expose } from 'class-transformer';
import {
  IsInt,
  IsOptional,
  IsString,
  IsUrl,
  Matches,
  Max,
  MaxLength,
  Min,
  ValidateIf,
} from 'class-validator';
import { ToInt, ToList } from '../config/env-transforms';
import { OPERATOR_KEY_PATTERN } from './api-key-token';

/**
 * Who may call the service's API. The operator key is the deployment's bootstrap secret (a Kubernetes
 * Secret): it carries every scope across tenants and creates the tenants' keys. JWTs from the platform's
 * identity provider are accepted when AUTH_JWKS_URL is set.
 */
export class AuthConfig {
  /** `umso_` and at least 43 base64url characters (32 random bytes); docs/operations.md says how to make one. */
  @Expose()
  @Matches(OPERATOR_KEY_PATTERN, {
    message: 'AUTH_OPERATOR_KEY must be umso_ followed by at least 43 base64url characters (32 random bytes)',
  })
  AUTH_OPERATOR_KEY!: string;

  /**
   * How long a replica trusts an API key it has checked before it reads it again: a revoked key stops
   * working on every replica within this time plus one database read. At most 4 s.
   */
  @Expose() @ToInt() @IsInt() @Min(0) @Max(4000) AUTH_KEY_CACHE_MS = 2000;

  /** The identity provider's JSON Web Key Set; unset, bearer JWTs are refused (AUTH_JWT_NOT_ACCEPTED). */
  @Expose()
  @IsOptional()
  @IsUrl({ require_tld: false, protocols: ['http', 'https'], require_protocol: true })
  AUTH_JWKS_URL?: string;

  /** The `iss` a token must carry; unset, any issuer the JWKS verifies. */
  @Expose() @IsOptional() @IsString() @MaxLength(500) AUTH_JWT_ISSUER?: string;

  /** The `aud` a token must carry: required with AUTH_JWKS_URL. */
  @Expose()
  @ValidateIf((c: AuthConfig) => c.AUTH_JWKS_URL !== undefined)
  @IsString({ message: 'AUTH_JWT_AUDIENCE is required when AUTH_JWKS_URL is set' })
  @MaxLength(500)
  AUTH_JWT_AUDIENCE?: string;

  /** The claim holding the caller's tenant id. */
  @Expose() @Matches(/^[A-Za-z0-9_.:/-]{1,100}$/) AUTH_JWT_TENANT_CLAIM = 'tenant_id';

  /** The claim holding the caller's scopes: a space-separated string (OAuth's `scope`) or an array. */
  @Expose() @Matches(/^[A-Za-z0-9_.:/-]{1,100}$/) AUTH_JWT_SCOPES_CLAIM = 'scope';

  /** Signature algorithms accepted from the identity provider. */
  @Expose()
  @ToList()
  @Matches(/^(RS|PS|ES)(256|384|512)$|^EdDSA$/, {
    each: true,
    message: 'must each be RS/PS/ES256-512 or EdDSA',
  })
  AUTH_JWT_ALGORITHMS: string[] = ['RS256', 'ES256'];
}
