import { Injectable, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { PeriodicRunner } from '@ums/platform';
import { PinoLogger } from 'nestjs-pino';
import { SubscriberDirectory } from '../subscribers/subscriber-directory.service';
import { DeliveriesConfig } from './deliveries.config';
import { DeliveriesMetrics } from './deliveries.metrics';
import { DeliveriesRepository } from './deliveries.repository';
import { DeliveryDispatcher } from './delivery-dispatcher.service';
import { SubscriberReplay } from './subscriber-replay.service';

const SWEEP_LIMIT = 500;

/**
 * Recovers deliveries whose process died between storing them and writing their result (PENDING
 * past their lease): they are taken under a new lease (SKIP LOCKED across replicas) and attempted
 * here. Also resumes resurrect replays whose replica died, and refreshes the subscriber-state and
 * oldest-undelivered gauges.
 */
@Injectable()
export class PendingSweeper implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly runner = new PeriodicRunner(
    () => this.sweep(),
    (error: unknown) => this.logger.warn({ err: error }, 'Delivery sweep failed; next tick retries'),
  );

  constructor(
    private readonly repository: DeliveriesRepository,
    private readonly dispatcher: DeliveryDispatcher,
    private readonly directory: SubscriberDirectory,
    private readonly config: DeliveriesConfig,
    private readonly metrics: DeliveriesMetrics,
    private readonly replays: SubscriberReplay,
    private readonly logger: PinoLogger,
  ) {}

  onApplicationBootstrap(): void {
    this.runner.start(this.config.WEBHOOK_SWEEP_TICK_MS);
  }

  async onApplicationShutdown(): Promise<void> {
    await this.runner.stop();
  }

  async sweep(): Promise<number> {
    this.replays.resumeStalled();
    const counts = this.directory.countsByState();
    for (const [state, count] of Object.entries(counts)) this.metrics.subscribers.set({ state }, count);
    const oldest = await this.repository.oldestUndelivered();
    this.metrics.oldestUndeliveredSeconds.set(
      oldest === undefined ? 0 : Math.max(0, (Date.now() - oldest.getTime()) / 1000),
    );
    await this.dispatcher.whenCapacity();
    const jobs = await this.repository.takeExpired(SWEEP_LIMIT, this.config.WEBHOOK_PENDING_LEASE_MS);
    if (jobs.length > 0) {
      this.logger.info({ count: jobs.length }, 'Re-attempting deliveries whose lease expired');
      this.dispatcher.submit(jobs);
    }
    return jobs.length;
  }
}
