import { Injectable, type BeforeApplicationShutdown, type OnApplicationBootstrap } from '@nestjs/common';
import { Topics } from '@ums/contracts';
import { KafkaProducer, PeriodicRunner, withNamedLock } from '@ums/platform';
import { PinoLogger } from 'nestjs-pino';
import { DataSource } from 'typeorm';
import { SchedulingConfig } from '../scheduling/scheduling.config';
import { RunEventsRepository } from './run-events.repository';

/** Events per publish and stamp. */
const RELAY_BATCH = 500;

/**
 * Relays the run_events outbox to `ums.campaign.lifecycle.v1`: every RUN_EVENTS_RELAY_MS, the replica
 * that holds the relay's named lock publishes the committed, unpublished events oldest first (acks=all,
 * keyed by campaign, so a campaign's events keep their order on its partition) and then stamps them
 * published. Every transition is announced once it is committed, by whichever service made it (the
 * expander starts runs); a relay that stops between the broker's answer and the stamp publishes those
 * events again on the next tick with the same `eventId`, which consumers (the dispatcher) dedupe.
 */
@Injectable()
export class RunEventsRelay implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly runner = new PeriodicRunner(
    () => this.relay(),
    (error) => this.logger.error({ err: error }, 'Relaying run events failed; retrying next tick'),
  );

  constructor(
    private readonly dataSource: DataSource,
    private readonly repository: RunEventsRepository,
    private readonly producer: KafkaProducer,
    private readonly config: SchedulingConfig,
    private readonly logger: PinoLogger,
  ) {
    this.logger.setContext(RunEventsRelay.name);
  }

  onApplicationBootstrap(): void {
    this.runner.start(this.config.RUN_EVENTS_RELAY_MS);
  }

  async beforeApplicationShutdown(): Promise<void> {
    await this.runner.stop();
  }

  /** Publishes what is waiting, unless another replica is at it; returns how many events went out. */
  async relay(): Promise<number> {
    const lock = { name: 'ums.run_events_relay.', waitSeconds: 0, perDatabase: true };
    const done = await withNamedLock(this.dataSource, lock, async (runner) => {
      let published = 0;
      for (;;) {
        const events = await this.repository.unpublished(runner, RELAY_BATCH);
        if (events.length === 0) return published;
        await this.producer.publish(
          Topics.runLifecycle,
          events.map((e) => e.value),
        );
        await this.repository.markPublished(
          runner,
          events.map((e) => e.id),
        );
        published += events.length;
        if (events.length < RELAY_BATCH) return published;
      }
    });
    return done.acquired ? done.value : 0;
  }
}
