import { describeIssues, type FieldIssue, flattenValidationErrors } from '@ums/contracts';
import { plainToInstance, Transform } from 'class-transformer';
import { registerDecorator, type ValidationArguments, validateSync } from 'class-validator';
import { CredentialEntryDto } from './credential-settings.dto';
import { applyCredentialChanges } from './simulated-credential';

/** Parses a JSON environment value; a string that is not JSON is left for the validator to refuse. */
export const ParseJson = (): PropertyDecorator =>
  Transform(({ value }: { value: unknown }) => {
    if (typeof value !== 'string') return value;
    try {
      return JSON.parse(value) as unknown;
    } catch {
      return value;
    }
  });

/** Every problem of a SIMULATOR_CREDENTIALS value, as the admin API would report them. */
export function credentialListIssues(value: unknown): FieldIssue[] {
  if (!Array.isArray(value)) return [{ field: '', reason: 'must be a JSON array of credentials' }];
  const issues: FieldIssue[] = [];
  const seen = new Set<string>();
  value.forEach((item: unknown, index) => {
    const at = `[${index}]`;
    if (item === null || typeof item !== 'object' || Array.isArray(item)) {
      issues.push({ field: at, reason: 'must be an object' });
      return;
    }
    const entry = plainToInstance(CredentialEntryDto, item);
    const errors = validateSync(entry, { whitelist: true, forbidNonWhitelisted: true });
    const own = flattenValidationErrors(errors);
    if (own.length === 0) {
      const { problems } = applyCredentialChanges(
        entry.credentialId,
        entry.provider,
        entry,
        undefined,
        new Date(),
      );
      own.push(...problems);
      if (seen.has(entry.credentialId)) own.push({ field: 'credentialId', reason: 'appears twice' });
      seen.add(entry.credentialId);
    }
    issues.push(...own.map((i) => ({ field: `${at}.${i.field}`, reason: i.reason })));
  });
  return issues;
}

/** A JSON array of credential entries (see CredentialEntryDto), unknown fields refused. */
export function IsCredentialList(): PropertyDecorator {
  return (target: object, propertyName: string | symbol): void => {
    registerDecorator({
      name: 'isCredentialList',
      target: target.constructor,
      propertyName: String(propertyName),
      validator: {
        validate: (value: unknown): boolean => credentialListIssues(value).length === 0,
        defaultMessage: (args: ValidationArguments): string =>
          `${args.property}: ${describeIssues(credentialListIssues(args.value))}`,
      },
    });
  };
}
