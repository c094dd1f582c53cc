import { plainToInstance } from 'class-transformer';
import { validateSync } from 'class-validator';
import { DecodeErrorCode } from '../errors/message-handling-error-code.enum';
import { fastAccept } from './fast-accept.validator';
import { type FieldIssue, flattenValidationErrors } from './field-issue';

export type MessageClass<V extends object> = new () => V;

export type DecodeResult<V> =
  | { readonly ok: true; readonly value: V }
  | { readonly ok: false; readonly code: DecodeErrorCode; readonly issues: readonly FieldIssue[] };

/**
 * Validates a plain object against a message class. Unknown fields are stripped rather than
 * refused, so a producer on a newer minor schema does not dead-letter older consumers.
 */
export function validateMessage<V extends object>(cls: MessageClass<V>, plain: unknown): DecodeResult<V> {
  if (plain === null || typeof plain !== 'object' || Array.isArray(plain)) {
    return {
      ok: false,
      code: DecodeErrorCode.SchemaViolation,
      issues: [{ field: '(root)', reason: 'must be a JSON object' }],
    };
  }
  // Most messages are valid: accepted by the compiled plan; the rest get class-validator's verdict.
  const accepted = fastAccept(cls, plain);
  if (accepted !== undefined) return { ok: true, value: accepted };
  let instance: V;
  let errors: ReturnType<typeof validateSync>;
  try {
    instance = plainToInstance(cls, plain);
    errors = validateSync(instance, { whitelist: true, forbidUnknownValues: true });
  } catch (error: unknown) {
    // class-transformer throws on some shapes (a nested object with a "constructor" key): still just
    // an invalid message, to be dead-lettered, never an exception that stops its partition.
    const reason = error instanceof Error ? error.message : String(error);
    return {
      ok: false,
      code: DecodeErrorCode.SchemaViolation,
      issues: [{ field: '(root)', reason: `could not be read as ${cls.name}: ${reason}` }],
    };
  }
  if (errors.length > 0) {
    return { ok: false, code: DecodeErrorCode.SchemaViolation, issues: flattenValidationErrors(errors) };
  }
  return { ok: true, value: instance };
}

/** Parses and validates a consumed message value. */
export function decodeMessage<V extends object>(
  cls: MessageClass<V>,
  raw: Buffer | string | null,
): DecodeResult<V> {
  if (raw === null || raw.length === 0) {
    return {
      ok: false,
      code: DecodeErrorCode.EmptyMessage,
      issues: [{ field: '(root)', reason: 'message has no value' }],
    };
  }
  let plain: unknown;
  try {
    plain = JSON.parse(typeof raw === 'string' ? raw : raw.toString('utf8'));
  } catch (error: unknown) {
    const reason = error instanceof Error ? error.message : 'not valid JSON';
    return { ok: false, code: DecodeErrorCode.InvalidJson, issues: [{ field: '(root)', reason }] };
  }
  return validateMessage(cls, plain);
}
