import { Injectable, type BeforeApplicationShutdown, type OnApplicationBootstrap } from '@nestjs/common';
import { MetricsRegistry } from '@ums/platform';
import { PinoLogger } from 'nestjs-pino';
import { Counter } from 'prom-client';
import { MessageClaimsRepository } from './message-claims.repository';
import { SendingConfig } from './sending.config';
import { StatusEventsPublisher } from './status-events.publisher';

const EXPIRE_BATCH = 1_000;

/**
 * Claims never recorded (the sender died between claim and result) become UNKNOWN after
 * SENDER_CLAIM_TIMEOUT_MS: counted, published, shown, and never resent automatically.
 */
@Injectable()
export class ClaimExpiryService implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private timer: NodeJS.Timeout | undefined;
  private sweeping: Promise<void> | undefined;
  private stopped = false;
  private readonly unknown: Counter;

  constructor(
    private readonly claims: MessageClaimsRepository,
    private readonly statuses: StatusEventsPublisher,
    private readonly config: SendingConfig,
    private readonly logger: PinoLogger,
    registry: MetricsRegistry,
  ) {
    this.logger.setContext(ClaimExpiryService.name);
    this.unknown = new Counter({
      name: 'ums_sender_messages_unknown_total',
      help: 'Claims that expired without a recorded result (never resent automatically)',
      registers: [registry],
    });
  }

  onApplicationBootstrap(): void {
    this.schedule();
  }

  async beforeApplicationShutdown(): Promise<void> {
    this.stopped = true;
    if (this.timer !== undefined) clearTimeout(this.timer);
    await this.sweeping;
  }

  private schedule(): void {
    this.timer = setTimeout(() => {
      this.sweeping = this.sweep().finally(() => {
        this.sweeping = undefined;
        if (!this.stopped) this.schedule();
      });
    }, this.config.SENDER_CLAIM_SWEEP_MS);
  }

  async sweep(): Promise<void> {
    try {
      for (;;) {
        const changes = await this.claims.expireClaims(
          this.config.SENDER_CLAIM_TIMEOUT_MS,
          EXPIRE_BATCH,
          (expired) => this.statuses.publish(expired),
        );
        if (changes.length === 0) return;
        this.unknown.inc(changes.length);
        this.logger.warn(
          { count: changes.length, runs: [...new Set(changes.map((c) => c.runId))] },
          'Claims expired without a result: messages are UNKNOWN',
        );
        if (changes.length < EXPIRE_BATCH) return;
      }
    } catch (error: unknown) {
      this.logger.error({ err: error }, 'Expiring claims failed; retrying on the next sweep');
    }
  }
}
