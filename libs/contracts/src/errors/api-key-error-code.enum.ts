/** Refusals of the API key routes (campaign-scheduler access). */
export enum ApiKeyErrorCode {
  /** 404: no API key with this id for the caller's tenant. */
  NotFound = 'API_KEY_NOT_FOUND',
  /** 403: a key may not get scopes the key creating it lacks. */
  ScopeBeyondCaller = 'API_KEY_SCOPE_BEYOND_CALLER',
  /** 400: expiresAt is not in the future, or too far ahead. */
  ExpiryInvalid = 'API_KEY_EXPIRY_INVALID',
}
