import { Injectable, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { signWebhook } from '@ums/domain';
import { PeriodicRunner } from '@ums/platform';
import { PinoLogger } from 'nestjs-pino';
import { ulid } from 'ulid';
import { SubscriberDirectory } from '../subscribers/subscriber-directory.service';
import { DeliveriesConfig } from './deliveries.config';
import { ResurrectService } from './resurrect.service';
import { SubscriberHttpClient } from './subscriber-http.client';

/**
 * Optional (WEBHOOK_PROBE_INTERVAL_MS > 0): every interval, each tombstoned (DEAD) subscriber gets one
 * signed `webhook.probe` POST; one that answers 2xx is resurrected, which replays what it missed in order.
 * DISABLED subscribers (they answered 410) are never probed: they asked us to stop.
 */
@Injectable()
export class SubscriberProbe implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly runner = new PeriodicRunner(
    () => this.probeAll(),
    (error: unknown) => this.logger.warn({ err: error }, 'Subscriber probe round failed'),
  );

  constructor(
    private readonly directory: SubscriberDirectory,
    private readonly client: SubscriberHttpClient,
    private readonly resurrection: ResurrectService,
    private readonly config: DeliveriesConfig,
    private readonly logger: PinoLogger,
  ) {}

  onApplicationBootstrap(): void {
    if (this.config.WEBHOOK_PROBE_INTERVAL_MS === 0) return;
    this.runner.start(this.config.WEBHOOK_PROBE_INTERVAL_MS);
  }

  async onApplicationShutdown(): Promise<void> {
    await this.runner.stop();
  }

  private async probeAll(): Promise<void> {
    for (const id of this.directory.idsInState('DEAD')) {
      const subscriber = this.directory.get(id);
      // A subscriber whose secret does not open cannot be signed for (the directory reports it).
      if (subscriber?.record.state !== 'DEAD' || subscriber.secretUnreadable !== undefined) continue;
      const body = JSON.stringify({ type: 'webhook.probe', timestamp: new Date().toISOString(), data: {} });
      const headers = signWebhook(subscriber.keys, `probe_${ulid()}`, Date.now() / 1000, body);
      const result = await this.client.post(subscriber.record.url, subscriber.record.internal, headers, body);
      if (result.kind !== 'delivered') continue;
      this.logger.info({ subscriberId: id }, 'Dead subscriber answered a probe: resurrecting it');
      await this.resurrection.resurrect(id, null);
    }
  }
}
