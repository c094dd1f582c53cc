import { isInfrastructureError } from '../errors/infrastructure-error';

export interface RetryInfrastructureOptions {
  /** Gives up (throws the last error) once this long has passed since the first try. */
  readonly forMs: number;
  /** The first pause; each next one doubles, up to maxDelayMs. */
  readonly firstDelayMs?: number;
  readonly maxDelayMs?: number;
  /** Checked before each pause: true (a shutdown under way) throws the last error at once. */
  readonly stopped?: () => boolean;
  /** Told about each failure that will be retried (for a log line or a metric). */
  readonly onRetry?: (error: unknown, attempt: number, delayMs: number) => void;
  readonly sleep?: (ms: number) => Promise<void>;
  readonly now?: () => number;
}

/**
 * Runs `task`, and again after a pause while it fails with an infrastructure error (a lost MySQL
 * connection, a deadlock, Redis or Kafka unavailable: see infrastructureFailure), for at most
 * `forMs`. Any other error is thrown at once. For idempotent work whose loss costs more than the
 * wait: a write-back that, dropped, would make a sweeper repeat work already done.
 */
export async function retryInfrastructure<T>(
  task: () => Promise<T>,
  options: RetryInfrastructureOptions,
): Promise<T> {
  const now = options.now ?? Date.now;
  const sleep = options.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
  const maxDelayMs = options.maxDelayMs ?? 5_000;
  const deadline = now() + options.forMs;
  let delayMs = options.firstDelayMs ?? 200;
  for (let attempt = 1; ; attempt++) {
    try {
      return await task();
    } catch (error: unknown) {
      const pause = Math.min(delayMs, maxDelayMs);
      if (!isInfrastructureError(error) || options.stopped?.() === true || now() + pause > deadline) {
        throw error;
      }
      options.onRetry?.(error, attempt, pause);
      await sleep(pause);
      delayMs = pause * 2;
    }
  }
}
