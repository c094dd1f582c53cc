import { Injectable, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { PinoLogger } from 'nestjs-pino';
import {
  CredentialRateSecondsAccumulator,
  type CredentialSecond,
} from './credential-rate-seconds.accumulator';
import {
  CREDENTIAL_SECONDS_PER_STATEMENT,
  CredentialRateSecondsRepository,
} from './credential-rate-seconds.repository';
import { RateLimitMetrics } from './rate-limit.metrics';

/** A flush runs this long after each second ends, so the second is in MySQL soon after it is over. */
const FLUSH_AFTER_SECOND_MS = 50;

/**
 * Writes the rate limiter's per-second figures (CredentialRateSecondsAccumulator) to
 * `credential_rate_seconds` once per second, just after each second ends: the seconds already over, in
 * one multi-row upsert (several of CREDENTIAL_SECONDS_PER_STATEMENT rows after an outage). What MySQL
 * does not take is put back and written on a later tick; the accumulator bounds how much is held. A last
 * flush at shutdown writes the second in progress too. Nothing here is on the sending path.
 */
@Injectable()
export class CredentialRateSecondsService implements OnApplicationBootstrap, OnApplicationShutdown {
  private timer: NodeJS.Timeout | undefined;
  private flushing: Promise<void> | undefined;
  private stopped = false;
  /** Flushes failed in a row: the first is logged as a warning, the recovery as info. */
  private failedInARow = 0;

  constructor(
    private readonly accumulator: CredentialRateSecondsAccumulator,
    private readonly repository: CredentialRateSecondsRepository,
    private readonly metrics: RateLimitMetrics,
    private readonly logger: PinoLogger,
  ) {
    this.logger.setContext(CredentialRateSecondsService.name);
  }

  onApplicationBootstrap(): void {
    this.schedule();
  }

  /** After the consumers drained (before-shutdown hooks): their last figures are written too. */
  async onApplicationShutdown(): Promise<void> {
    this.stopped = true;
    if (this.timer !== undefined) clearTimeout(this.timer);
    await this.flushing;
    if (await this.tick(true)) return;
    const lost = this.accumulator.take(true).length;
    if (lost === 0) return;
    this.metrics.secondsDropped.inc(lost);
    this.logger.warn(
      { rows: lost },
      'Per-second rate figures not written at shutdown: MySQL did not take them',
    );
  }

  private schedule(): void {
    const delay = 1_000 - (Date.now() % 1_000) + FLUSH_AFTER_SECOND_MS;
    this.timer = setTimeout(() => {
      this.flushing = this.tick(false)
        .then(() => undefined)
        .finally(() => {
          this.flushing = undefined;
          if (!this.stopped) this.schedule();
        });
    }, delay);
  }

  /** One flush with its failure counted and logged, never thrown; true when everything was written. */
  async tick(all: boolean): Promise<boolean> {
    try {
      await this.flush(all);
    } catch (error: unknown) {
      this.metrics.secondsFlushFailures.inc();
      this.failedInARow += 1;
      if (this.failedInARow === 1) {
        this.logger.warn(
          { error: summaryOf(error), pendingSeconds: this.accumulator.pendingSeconds },
          'Writing per-second rate figures failed; kept and retried each second',
        );
      }
      return false;
    }
    if (this.failedInARow > 0) {
      this.logger.info({ failedFlushes: this.failedInARow }, 'Per-second rate figures written again');
      this.failedInARow = 0;
    }
    return true;
  }

  /**
   * Writes the seconds already over (all of them when `all`); returns the rows written. On a failure the
   * rows not written go back to the accumulator and the error is thrown.
   */
  async flush(all = false): Promise<number> {
    const rows: CredentialSecond[] = this.accumulator.take(all);
    let written = 0;
    try {
      while (written < rows.length) {
        const chunk = rows.slice(written, written + CREDENTIAL_SECONDS_PER_STATEMENT);
        await this.repository.add(chunk);
        written += chunk.length;
      }
    } catch (error: unknown) {
      this.accumulator.putBack(rows.slice(written));
      throw error;
    }
    return written;
  }
}

/**
 * The error without the statement and its parameters (a failed upsert's error carries them: thousands
 * of values, which belong in no log line).
 */
function summaryOf(error: unknown): { name: string; code?: string; message: string } {
  if (!(error instanceof Error)) return { name: 'Error', message: String(error).slice(0, 500) };
  const code = (error as { code?: unknown }).code;
  return {
    name: error.name,
    ...(typeof code === 'string' ? { code } : {}),
    message: error.message.slice(0, 500),
  };
}
