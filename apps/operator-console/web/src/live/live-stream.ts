import { createParser } from 'eventsource-parser';
import { ApiError, isAbort, toApiError } from '../api/api-error';
import { reconnectDelay } from './backoff';

export type LiveStatus =
  | { readonly kind: 'connecting' }
  | { readonly kind: 'live' }
  | { readonly kind: 'retrying'; readonly inMs: number; readonly error: ApiError }
  | { readonly kind: 'stopped'; readonly error: ApiError };

export interface LiveStreamOptions {
  /** Opens the stream: a 2xx response whose body is `text/event-stream`, or throws an ApiError. */
  readonly open: (signal: AbortSignal) => Promise<Response>;
  readonly onMessage: (event: string, data: string) => void;
  readonly onStatus: (status: LiveStatus) => void;
  /** Aborting it closes the stream for good (the page was left). */
  readonly signal: AbortSignal;
  /** A connection that brings nothing (not even a keep-alive comment) for this long is dropped. */
  readonly stallMs?: number;
  readonly delay?: (attempt: number, serverRetryMs: number) => number;
}

const DEFAULT_STALL_MS = 20_000;

/** A 4xx other than 408 and 429 will not change by asking again (bad id, no scope, signed out). */
function isFinal(error: ApiError): boolean {
  return error.status >= 400 && error.status < 500 && error.status !== 408 && error.status !== 429;
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    function done(): void {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    }
    signal.addEventListener('abort', done);
  });
}

interface Connection {
  /** Whether any event came (then the next failure starts the backoff again). */
  received: boolean;
  serverRetryMs: number;
}

/** Reads one connection's events until the body ends; a stall aborts it. */
async function readConnection(options: LiveStreamOptions, state: Connection): Promise<void> {
  const controller = new AbortController();
  const abort = (): void => controller.abort();
  options.signal.addEventListener('abort', abort);
  let watchdog: ReturnType<typeof setTimeout> | undefined;
  const arm = (): void => {
    clearTimeout(watchdog);
    watchdog = setTimeout(abort, options.stallMs ?? DEFAULT_STALL_MS);
  };
  try {
    arm();
    const response = await options.open(controller.signal);
    options.onStatus({ kind: 'live' });
    const parser = createParser({
      onEvent: (message) => {
        state.received = true;
        options.onMessage(message.event ?? 'message', message.data);
      },
      onRetry: (ms) => (state.serverRetryMs = ms),
    });
    const reader = response.body?.pipeThrough(new TextDecoderStream()).getReader();
    if (reader === undefined) return;
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      arm();
      parser.feed(value);
    }
  } catch (thrown) {
    if (options.signal.aborted) return;
    if (controller.signal.aborted && isAbort(thrown)) {
      throw new ApiError({ status: 0, code: 'STREAM_STALLED', message: 'The live stream went silent' });
    }
    throw thrown;
  } finally {
    clearTimeout(watchdog);
    options.signal.removeEventListener('abort', abort);
  }
}

/**
 * Reads server-sent events over fetch (EventSource cannot send the Authorization header), reconnecting
 * with backoff when the connection drops, ends or goes silent, until `signal` aborts. A final refusal
 * (4xx) stops it with that error.
 */
export async function runLiveStream(options: LiveStreamOptions): Promise<void> {
  const delay = options.delay ?? ((attempt, retry) => reconnectDelay(attempt, Math.random, retry));
  let attempt = 0;
  options.onStatus({ kind: 'connecting' });
  while (!options.signal.aborted) {
    const state: Connection = { received: false, serverRetryMs: 0 };
    let error = new ApiError({ status: 0, code: 'STREAM_ENDED', message: 'The live stream ended' });
    try {
      await readConnection(options, state);
    } catch (thrown) {
      if (options.signal.aborted) return;
      error = toApiError(thrown);
      if (isFinal(error)) {
        options.onStatus({ kind: 'stopped', error });
        return;
      }
    }
    if (options.signal.aborted) return;
    if (state.received) attempt = 0;
    const inMs = delay(attempt++, state.serverRetryMs);
    options.onStatus({ kind: 'retrying', inMs, error });
    await sleep(inMs, options.signal);
  }
}
