import { Injectable, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { MetricsRegistry } from '@ums/platform';
import { PinoLogger } from 'nestjs-pino';
import { Counter } from 'prom-client';
import { MessageClaimsRepository } from './message-claims.repository';
import { SendingConfig } from './sending.config';

const FOLD_BATCH = 5_000;

/**
 * Folds the run counter deltas that claims, records, finished batches and applied callbacks write
 * (run-counters.ts) into `runs` every SENDER_COUNTER_FOLD_MS, on every replica, so the campaign
 * API's counters and the expander's backpressure trail the message rows by about that much.
 * A last fold runs at shutdown; what a killed process leaves is folded by the next one.
 */
@Injectable()
export class RunCounterFoldingService implements OnApplicationBootstrap, OnApplicationShutdown {
  private timer: NodeJS.Timeout | undefined;
  private folding: Promise<void> | undefined;
  private stopped = false;
  private readonly folded: Counter;
  private readonly clamped: Counter;

  constructor(
    private readonly claims: MessageClaimsRepository,
    private readonly config: SendingConfig,
    private readonly logger: PinoLogger,
    registry: MetricsRegistry,
  ) {
    this.logger.setContext(RunCounterFoldingService.name);
    this.folded = new Counter({
      name: 'ums_sender_counter_deltas_folded_total',
      help: 'Run counter delta rows folded into runs',
      registers: [registry],
    });
    this.clamped = new Counter({
      name: 'ums_sender_counter_clamped_total',
      help: 'Run counters a fold would have taken below zero (clamped): a counter drifted from its rows',
      registers: [registry],
    });
  }

  onApplicationBootstrap(): void {
    this.schedule();
  }

  /** After the consumers drained (before-shutdown hooks), so their last deltas are folded too. */
  async onApplicationShutdown(): Promise<void> {
    this.stopped = true;
    if (this.timer !== undefined) clearTimeout(this.timer);
    await this.folding;
    await this.foldAll();
  }

  private schedule(): void {
    this.timer = setTimeout(() => {
      this.folding = this.foldAll().finally(() => {
        this.folding = undefined;
        if (!this.stopped) this.schedule();
      });
    }, this.config.SENDER_COUNTER_FOLD_MS);
  }

  /** Folds until a pass finds less than a full batch; errors are logged and retried on the next tick. */
  async foldAll(): Promise<void> {
    try {
      for (;;) {
        const { folded, clamped } = await this.claims.foldCounters(FOLD_BATCH);
        this.folded.inc(folded);
        if (clamped.length > 0) {
          this.clamped.inc(clamped.length);
          this.logger.error({ clamped }, 'Run counters would have gone below zero: clamped, they drifted');
        }
        if (folded < FOLD_BATCH) return;
      }
    } catch (error: unknown) {
      this.logger.error({ err: error }, 'Folding run counters failed; retrying on the next tick');
    }
  }
}
