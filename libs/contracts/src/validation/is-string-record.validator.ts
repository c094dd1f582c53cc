import { registerDecorator, type ValidationOptions } from 'class-validator';

/** A flat object of string values with bounded size, e.g. a recipient's template variables. */
export function IsStringRecord(maxKeys: number, maxValueLength: number, options?: ValidationOptions) {
  return (target: object, propertyName: string): void => {
    registerDecorator({
      name: 'isStringRecord',
      target: target.constructor,
      propertyName,
      options,
      constraints: [maxKeys, maxValueLength],
      validator: {
        validate(value: unknown): boolean {
          if (value === null || typeof value !== 'object' || Array.isArray(value)) return false;
          const entries = Object.entries(value);
          return (
            entries.length <= maxKeys &&
            entries.every(
              ([key, v]) =>
                key.length > 0 && key.length <= 64 && typeof v === 'string' && v.length <= maxValueLength,
            )
          );
        },
        defaultMessage(): string {
          return `must be an object of at most ${maxKeys} string values of at most ${maxValueLength} characters`;
        },
      },
    });
  };
}
