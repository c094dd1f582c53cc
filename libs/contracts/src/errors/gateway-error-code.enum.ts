/**
 * Answers of the operator console (apps/operator-console) when it cannot pass a call on to the API
 * behind it (campaign-scheduler under `/api/scheduler`, webhook-dispatcher under `/api/dispatcher`).
 * Answered as `{ error: { code, message } }`; the message names the API, never its address.
 */
export enum GatewayErrorCode {
  /** 503 (with `Retry-After`): no connection to the API could be made (refused, unknown host, connect timeout). */
  UpstreamUnavailable = 'UPSTREAM_UNAVAILABLE',
  /** 502: the connection to the API broke before its answer began, or the answer was not valid HTTP. */
  UpstreamFailed = 'UPSTREAM_FAILED',
  /** 504: the API did not begin its answer within `CONSOLE_UPSTREAM_TIMEOUT_MS`. */
  UpstreamTimeout = 'UPSTREAM_TIMEOUT',
}
