import { registerValidatorSchema } from '@ums/platform';
import { registerDecorator, type ValidationArguments } from 'class-validator';

export const MAX_SETTINGS_KEYS = 50;
const MAX_KEY_LENGTH = 64;
const MAX_STRING_LENGTH = 1024;
const KEY = /^[A-Za-z0-9_.-]+$/;
// Settings are returned by the API and stored in clear; secrets belong in `secret`, which is sealed.
const SECRET_LOOKING_KEY = /secret|passw|token|api[-_.]?key|private[-_.]?key/i;

/** Whether a settings key names something secret (such settings are refused, and never shown). */
export function isSecretLookingKey(key: string): boolean {
  return SECRET_LOOKING_KEY.test(key);
}

/** Why a credential's non-secret settings are refused, or undefined when they are acceptable. */
export function settingsProblem(value: unknown): string | undefined {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return 'must be an object';
  const entries = Object.entries(value);
  if (entries.length > MAX_SETTINGS_KEYS) return `must have at most ${MAX_SETTINGS_KEYS} keys`;
  for (const [key, setting] of entries) {
    if (key.length > MAX_KEY_LENGTH || !KEY.test(key)) {
      return `key '${key.slice(0, MAX_KEY_LENGTH)}' must be 1-${MAX_KEY_LENGTH} of A-Z, a-z, 0-9, _ . -`;
    }
    if (isSecretLookingKey(key)) {
      return `key '${key}' looks like a secret: send it as \`secret\`, which is stored encrypted`;
    }
    const ok =
      typeof setting === 'boolean' ||
      (typeof setting === 'number' && Number.isFinite(setting)) ||
      (typeof setting === 'string' && setting.length <= MAX_STRING_LENGTH);
    if (!ok) {
      return `value of '${key}' must be a string of at most ${MAX_STRING_LENGTH} characters, a number or a boolean`;
    }
  }
  return undefined;
}

/** A pattern matching what `pattern` matches with the `i` flag (JSON Schema patterns take no flags). */
function anyCase(pattern: RegExp): string {
  return pattern.source.replace(/[a-z]/gi, (c) => `[${c.toLowerCase()}${c.toUpperCase()}]`);
}

registerValidatorSchema('isSettingsRecord', {
  type: 'object',
  maxProperties: MAX_SETTINGS_KEYS,
  propertyNames: {
    pattern: `^[A-Za-z0-9_.-]{1,${MAX_KEY_LENGTH}}$`,
    not: { pattern: anyCase(SECRET_LOOKING_KEY) },
  },
  additionalProperties: { type: ['string', 'number', 'boolean'], maxLength: MAX_STRING_LENGTH },
  description: 'Non-secret settings: a key that looks like a secret is refused (send it as `secret`).',
});

/** A flat object of non-secret provider settings (string, number or boolean values). */
export function IsSettingsRecord(): PropertyDecorator {
  return (target: object, propertyName: string | symbol): void => {
    registerDecorator({
      name: 'isSettingsRecord',
      target: target.constructor,
      propertyName: String(propertyName),
      validator: {
        validate: (value: unknown): boolean => settingsProblem(value) === undefined,
        defaultMessage: (args: ValidationArguments): string =>
          `${args.property} ${settingsProblem(args.value) ?? 'is invalid'}`,
      },
    });
  };
}
