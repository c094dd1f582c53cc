import { Expose } from 'class-transformer';
import { IsString, registerDecorator, type ValidationArguments } from 'class-validator';
import { ConfigValidationError } from '../config/config-loader';
import { parseSecretKeys, type SecretKey } from './secret-keys';

/** Validates a `<keyId>:<base64 32 bytes>` list; the reason names the entry, never its key bytes. */
function IsSecretKeyList(): PropertyDecorator {
  return (target: object, propertyName: string | symbol): void => {
    registerDecorator({
      name: 'isSecretKeyList',
      target: target.constructor,
      propertyName: String(propertyName),
      validator: {
        // A missing value is IsString's to report.
        validate: (value: unknown): boolean => typeof value !== 'string' || 'keys' in parseSecretKeys(value),
        defaultMessage: (args: ValidationArguments): string => {
          const parsed = typeof args.value === 'string' ? parseSecretKeys(args.value) : undefined;
          return parsed !== undefined && 'error' in parsed ? parsed.error : 'is invalid';
        },
      },
    });
  };
}

/**
 * Keys that seal stored secrets (credentials.secret_ciphertext). Required, with no default:
 * a built-in key would silently make every installation share it.
 */
export class SecretsConfig {
  /**
   * `<keyId>:<base64 of 32 random bytes>`, comma-separated. The first key seals; all of them open,
   * so to rotate, put a new key first and keep the old ones until every secret has been re-sealed.
   */
  @Expose() @IsString({ message: 'SECRETS_KEYS is required' }) @IsSecretKeyList() SECRETS_KEYS!: string;

  /** The parsed key ring (validated at start-up, so parsing cannot fail here). */
  keys(): SecretKey[] {
    const parsed = parseSecretKeys(this.SECRETS_KEYS);
    if ('error' in parsed) throw new ConfigValidationError([{ field: 'SECRETS_KEYS', reason: parsed.error }]);
    return parsed.keys;
  }
}
