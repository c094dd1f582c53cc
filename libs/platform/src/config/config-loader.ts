import { plainToInstance } from 'class-transformer';
import { validateSync } from 'class-validator';
import { ConfigErrorCode, type FieldIssue, flattenValidationErrors } from '@ums/contracts';
import { CodedError } from '../errors/coded-error';
import type { EnvSource } from './env-source';

export type ConfigClass<T extends object = object> = new () => T;

export class ConfigValidationError extends CodedError {
  constructor(readonly issues: readonly FieldIssue[]) {
    super(
      ConfigErrorCode.Invalid,
      `Invalid configuration:\n${issues.map((i) => `  - ${i.field}: ${i.reason}`).join('\n')}`,
      { issues },
    );
  }
}

/**
 * Builds each config class from the environment (property names are the variable names,
 * `@Type`/`@Transform` convert strings) and validates them all, reporting every problem at once.
 */
export function loadConfigs(classes: readonly ConfigClass[], env: EnvSource): Map<ConfigClass, object> {
  const loaded = new Map<ConfigClass, object>();
  const issues: FieldIssue[] = [];
  for (const cls of classes) {
    const instance = plainToInstance(cls, env, { exposeDefaultValues: true, excludeExtraneousValues: true });
    const errors = validateSync(instance, { forbidUnknownValues: true });
    issues.push(...flattenValidationErrors(errors));
    loaded.set(cls, Object.freeze(instance));
  }
  if (issues.length > 0) throw new ConfigValidationError(issues);
  return loaded;
}

export function loadConfig<T extends object>(cls: ConfigClass<T>, env: EnvSource): T {
  return loadConfigs([cls], env).get(cls) as T;
}
