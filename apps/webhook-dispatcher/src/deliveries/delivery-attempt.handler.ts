import { DeliveryErrorCode, describeFailure, HttpErrorCode } from '@ums/contracts';
import { classifyDeliveryResponse, type WebhookAttemptResult } from '@ums/domain';
import { errorCode, errorMessage } from '@ums/platform';
import type { Dispatcher } from 'undici';
import type { AttemptTimeoutError, TimedAttempt } from './attempt.watchdog';

/** An attempt's outcome plus whether the SSRF guard refused the address (no connection was made). */
export type AttemptResult = WebhookAttemptResult;

/** The most of a subscriber's answer read (and dropped); past it the connection is closed instead. */
const BODY_LIMIT = 65_536;

/**
 * One delivery attempt as an undici dispatch handler. It keeps the status and Retry-After, reads and
 * drops the answer's body (so the connection is reused), and ends once, with whichever comes first:
 * the end of the answer, an error, or the watchdog's timeout (which aborts the request; an answer whose
 * status came in time counts by its status, however long its body goes on). `request()`
 * cost a stream, an async resource and a promise chain per response, on every delivery.
 */
export class DeliveryAttemptHandler implements Dispatcher.DispatchHandler, TimedAttempt {
  done = false;
  private controller?: Dispatcher.DispatchController;
  private expired?: AttemptTimeoutError;
  private statusCode = 0;
  private retryAfter?: string;
  private received = 0;

  constructor(private readonly settle: (result: AttemptResult) => void) {}

  onRequestStart(controller: Dispatcher.DispatchController): void {
    this.controller = controller;
    // Timed out while waiting for a connection: it is not sent.
    if (this.expired !== undefined) controller.abort(this.expired);
  }

  onResponseStart(
    _controller: Dispatcher.DispatchController,
    statusCode: number,
    headers: Record<string, string | string[] | undefined>,
  ): void {
    this.statusCode = statusCode;
    const retryAfter = headers['retry-after'];
    this.retryAfter = Array.isArray(retryAfter) ? retryAfter[0] : retryAfter;
  }

  onResponseData(controller: Dispatcher.DispatchController, chunk: Buffer): void {
    this.received += chunk.length;
    if (this.received <= BODY_LIMIT || this.done) return;
    // The status decides the attempt; an endless or huge answer only costs its connection.
    this.end(this.classify());
    controller.abort(new Error(`answer body over ${BODY_LIMIT} bytes`));
  }

  onResponseEnd(): void {
    this.end(this.classify());
  }

  onResponseError(_controller: Dispatcher.DispatchController | undefined, error: Error): void {
    this.fail(error);
  }

  expire(reason: AttemptTimeoutError): void {
    // Once the status is in, it decides the attempt: the timeout only cuts off reading the body.
    if (this.statusCode > 0) this.end(this.classify());
    else this.fail(reason);
    this.expired = reason;
    this.controller?.abort(reason);
  }

  /** Ends the attempt with a transport failure (also for a request that could not be dispatched). */
  fail(error: unknown): void {
    const code = errorCode(error);
    const refused = code === HttpErrorCode.AddressNotPublic;
    const cause = refused ? code : transportCode(error);
    this.end({ kind: 'failed', error: describeFailure(cause, errorMessage(error)).slice(0, 1024), refused });
  }

  private classify(): AttemptResult {
    return classifyDeliveryResponse(this.statusCode, this.retryAfter, Date.now());
  }

  private end(result: AttemptResult): void {
    if (this.done) return;
    this.done = true;
    this.settle(result);
  }
}

/** undici's own timeouts, set to the same budget as the watchdog: whichever fires first, it is a TIMEOUT. */
const UNDICI_TIMEOUTS = new Set([
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_HEADERS_TIMEOUT',
  'UND_ERR_BODY_TIMEOUT',
]);

/** Ours for a timeout or a failure without a code; otherwise the code of undici or Node (ECONNRESET...). */
function transportCode(error: unknown): string {
  if (error instanceof Error && 'code' in error && typeof error.code === 'string')
    return UNDICI_TIMEOUTS.has(error.code) ? DeliveryErrorCode.Timeout : error.code;
  if (error instanceof Error && error.name === 'TimeoutError') return DeliveryErrorCode.Timeout;
  return DeliveryErrorCode.Transport;
}
