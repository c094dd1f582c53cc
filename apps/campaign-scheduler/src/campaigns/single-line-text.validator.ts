import { findControlCharacter } from '@ums/domain';
import { registerValidatorSchema } from '@ums/platform';
import { registerDecorator, type ValidationArguments, type ValidationOptions } from 'class-validator';

/** Why a value is not single-line text (a name, a label), or undefined when it is. */
export function singleLineTextProblem(value: unknown): string | undefined {
  if (typeof value !== 'string') return 'must be a string';
  if (value.trim() === '') return 'must not be blank';
  const control = findControlCharacter(value);
  return control === undefined ? undefined : `must not contain control characters (found ${control})`;
}

// Not blank (one character that is neither white space nor a control), no control character (Unicode Cc).
registerValidatorSchema('isSingleLineText', { type: 'string', pattern: '^\\P{Cc}*[^\\s\\p{Cc}]\\P{Cc}*$' });

/** A string with something besides spaces and no control characters (line breaks, tabs, NUL...). */
export function IsSingleLineText(options?: ValidationOptions): PropertyDecorator {
  return (target: object, propertyName: string | symbol): void => {
    registerDecorator({
      name: 'isSingleLineText',
      target: target.constructor,
      propertyName: String(propertyName),
      options,
      validator: {
        validate: (value: unknown): boolean => singleLineTextProblem(value) === undefined,
        defaultMessage: (args: ValidationArguments): string =>
          `${args.property} ${singleLineTextProblem(args.value) ?? 'is not valid'}`,
      },
    });
  };
}
