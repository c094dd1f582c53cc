import { registerValidatorSchema } from '@ums/platform';
import { registerDecorator, type ValidationArguments, type ValidationOptions } from 'class-validator';

const MAX_BIGINT_UNSIGNED = 18_446_744_073_709_551_615n;

/** True for a BIGINT UNSIGNED id written in decimal (how the API shows auto-increment ids). */
export function isDecimalId(value: unknown): value is string {
  return typeof value === 'string' && /^\d{1,20}$/.test(value) && BigInt(value) <= MAX_BIGINT_UNSIGNED;
}

registerValidatorSchema('isDecimalId', {
  type: 'string',
  pattern: '^\\d{1,20}$',
  description: 'A decimal id, at most 18446744073709551615.',
});

/** `{each: true}` checks every item of an array. */
export function IsDecimalId(options?: ValidationOptions): PropertyDecorator {
  return (target: object, propertyName: string | symbol): void => {
    registerDecorator({
      name: 'isDecimalId',
      target: target.constructor,
      propertyName: String(propertyName),
      options,
      validator: {
        validate: isDecimalId,
        defaultMessage: (args: ValidationArguments): string =>
          `${args.property} must be ${options?.each === true ? 'a list of decimal ids' : 'a decimal id'}`,
      },
    });
  };
}
