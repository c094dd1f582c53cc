/**
 * Refusals of the `Idempotency-Key` header on the create routes (libs/platform http idempotency), after
 * the IETF draft "The Idempotency-Key HTTP Header Field".
 */
export enum IdempotencyErrorCode {
  /** 400: the Idempotency-Key header is empty, longer than 255 characters or not printable ASCII. */
  KeyInvalid = 'IDEMPOTENCY_KEY_INVALID',
  /** 422: the key was used before, on this route and tenant, with another request body. */
  KeyReused = 'IDEMPOTENCY_KEY_REUSED',
  /** 409: a request with this key is still being handled; retry once it has answered. */
  KeyInProgress = 'IDEMPOTENCY_KEY_IN_PROGRESS',
}
