/**
 * Refusals of the simulator's admin API (`/_sim/credentials`). Local to the simulator, a test tool:
 * not in the UMS catalogue (libs/contracts errors), so its codes are named explicitly where raised.
 */
export enum SimulatorErrorCode {
  /** 400: the credential's fields do not fit its provider (an account id missing, latency inconsistent). */
  InvalidCredential = 'INVALID_CREDENTIAL',
  /** 400: the credential id is not 1-100 of A-Z a-z 0-9 . _ : -. */
  InvalidCredentialId = 'INVALID_CREDENTIAL_ID',
  /** 409: another simulated credential already answers for the same provider account. */
  AccountInUse = 'ACCOUNT_IN_USE',
  /** 409: the credential cannot deliver a reply (no callbackUrl, a provider without inbound); 503: the post failed. */
  InboundUnavailable = 'INBOUND_UNAVAILABLE',
}
