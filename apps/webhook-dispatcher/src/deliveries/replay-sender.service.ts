import { Injectable } from '@nestjs/common';
import { webhookBatchLength } from '@ums/domain';
import { PinoLogger } from 'nestjs-pino';
import { type KnownSubscriber, SubscriberDirectory } from '../subscribers/subscriber-directory.service';
import { SubscribersRepository } from '../subscribers/subscribers.repository';
import { DeliveriesConfig } from './deliveries.config';
import { DeliveriesMetrics } from './deliveries.metrics';
import { DeliveriesRepository } from './deliveries.repository';
import type { DeliveryRecord } from './delivery.record';
import { DeliveryResultWriter } from './delivery-result.writer';
import { WEBHOOK_REPLAY_ATTEMPTS } from './delivery-tuning.constants';
import { SubscriberHttpClient } from './subscriber-http.client';

/**
 * Sends a replaying subscriber's MISSED deliveries in order, one request at a time (a batch
 * subscriber gets consecutive ones in one batch), each tried up to WEBHOOK_REPLAY_ATTEMPTS times.
 * Its requests stamp the subscriber's last success and last failure as the dispatcher's do.
 */
@Injectable()
export class ReplaySender {
  constructor(
    private readonly subscribers: SubscribersRepository,
    private readonly directory: SubscriberDirectory,
    private readonly deliveries: DeliveriesRepository,
    private readonly client: SubscriberHttpClient,
    private readonly config: DeliveriesConfig,
    private readonly metrics: DeliveriesMetrics,
    private readonly results: DeliveryResultWriter,
    private readonly logger: PinoLogger,
  ) {}

  /**
   * Sends rows in order, one per request (or, for a batch subscriber, consecutive rows together as one
   * batch); false (and the subscriber DEAD again) when one request keeps failing.
   */
  async sendInOrder(id: string, rows: readonly DeliveryRecord[], stopped: () => boolean): Promise<boolean> {
    const subscriber = this.directory.get(id);
    // Unsigned, nothing is sent: the replay stays REPLAYING and the sweeper resumes it until the
    // secret opens again (the directory reports it).
    if (subscriber === undefined || subscriber.secretUnreadable !== undefined) return false;
    const perRequest = subscriber.record.maxEventsPerRequest;
    for (let at = 0; at < rows.length;) {
      const rest = rows.slice(at);
      const unit = rest.slice(
        0,
        webhookBatchLength(rest, perRequest, (row) => row),
      );
      at += unit.length;
      const lastError = await this.send(subscriber, unit, stopped);
      if (lastError === undefined) continue;
      if (stopped()) return false;
      await this.subscribers.transition({
        id,
        tenant: null,
        from: ['REPLAYING'],
        to: 'DEAD',
        lastError: `replay stopped: ${lastError}`,
      });
      await this.directory.reload();
      this.logger.warn(
        { subscriberId: id, deliveryId: unit[0]?.id, lastError },
        'Replay failed: subscriber dead again',
      );
      return false;
    }
    return true;
  }

  /** One request's rows, tried until delivered; undefined once delivered, else the last error. */
  private async send(
    subscriber: KnownSubscriber,
    unit: readonly DeliveryRecord[],
    stopped: () => boolean,
  ): Promise<string | undefined> {
    let lastError = '';
    for (let attempt = 1; attempt <= WEBHOOK_REPLAY_ATTEMPTS && !stopped(); attempt++) {
      const endTimer = this.metrics.latency.startTimer();
      const result = await this.client.postEvents(
        subscriber,
        unit,
        subscriber.record.maxEventsPerRequest > 1,
      );
      endTimer();
      if (result.kind === 'delivered') {
        await this.deliveries.settle(
          unit.map((row) => ({
            deliveryId: row.id,
            state: 'DELIVERED',
            attempts: row.attempts + attempt,
            statusCode: result.status,
          })),
        );
        this.metrics.deliveries.inc({ outcome: 'delivered' }, unit.length);
        await this.results.stamp(new Set([subscriber.record.id]), new Map(), Date.now());
        return undefined;
      }
      lastError = result.kind === 'gone' ? 'HTTP 410' : result.error;
      this.metrics.deliveries.inc({ outcome: 'failed' }, unit.length);
      await this.results.stamp(new Set(), new Map([[subscriber.record.id, lastError]]), Date.now());
      if (result.kind === 'gone') break;
      await sleep(Math.min(this.config.WEBHOOK_RETRY_DELAYS_MS[0] ?? 5_000, 1_000 * 2 ** (attempt - 1)));
    }
    return lastError;
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
