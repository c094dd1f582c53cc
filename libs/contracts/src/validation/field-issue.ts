import type { ValidationError } from 'class-validator';

/** One reason a field of an input was refused, addressed by its path (e.g. `items[3].messageId`). */
export interface FieldIssue {
  readonly field: string;
  readonly reason: string;
}

/** Flattens class-validator's nested errors into one issue per failed constraint. */
export function flattenValidationErrors(errors: readonly ValidationError[], parent = ''): FieldIssue[] {
  const issues: FieldIssue[] = [];
  for (const error of errors) {
    const isIndex = /^\d+$/.test(error.property);
    const field =
      parent === ''
        ? error.property
        : isIndex
          ? `${parent}[${error.property}]`
          : `${parent}.${error.property}`;
    for (const reason of Object.values(error.constraints ?? {})) {
      issues.push({ field, reason });
    }
    if (error.children && error.children.length > 0) {
      issues.push(...flattenValidationErrors(error.children, field));
    }
  }
  return issues;
}

/** One line per issue, for logs and error messages. */
export function describeIssues(issues: readonly FieldIssue[]): string {
  return issues.map((issue) => `${issue.field}: ${issue.reason}`).join('; ');
}
