import { ValidationPipe } from '@nestjs/common';
import { describeIssues, flattenValidationErrors, HttpErrorCode } from '@ums/contracts';
import { InvalidInputError } from '../errors/coded-error';

/**
 * The one validation pipe for request bodies, params and queries: unknown fields are refused,
 * values are converted to the DTO's types, and every failure names its field and reason.
 */
export function createValidationPipe(): ValidationPipe {
  return new ValidationPipe({
    whitelist: true,
    forbidNonWhitelisted: true,
    transform: true,
    validationError: { target: false, value: false },
    exceptionFactory: (errors) => {
      const fields = flattenValidationErrors(errors);
      return new InvalidInputError(HttpErrorCode.ValidationFailed, describeIssues(fields), fields);
    },
  });
}
