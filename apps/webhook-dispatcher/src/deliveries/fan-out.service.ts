import { Injectable } from '@nestjs/common';
import type { WebhookEventFacts } from '@ums/domain';
import { SubscriberDirectory } from '../subscribers/subscriber-directory.service';
import { DeliveriesConfig } from './deliveries.config';
import { DeliveriesMetrics } from './deliveries.metrics';
import { DeliveriesRepository, type NewDelivery } from './deliveries.repository';
import type { DeliveryJob } from './delivery.record';
import { DeliveryDispatcher } from './delivery-dispatcher.service';

/** One consumed event, with the exact body subscribers get. */
export interface WebhookEvent {
  readonly eventId: string;
  readonly facts: WebhookEventFacts;
  readonly payload: string;
  readonly source: { readonly topic: string; readonly partition: number; readonly offset: string };
}

const INSERT_SLICE = 500;

/**
 * Fans events out to the subscribers whose filter takes them: one deliveries row per (subscriber,
 * event), written in bulk with INSERT IGNORE (a redelivered event creates nothing new), PENDING for
 * live subscribers and MISSED (kept for a resurrect) for dead ones. Resolves once the rows are
 * durable and the attempts queued; the attempts themselves never hold the consumer.
 */
@Injectable()
export class FanOutService {
  constructor(
    private readonly directory: SubscriberDirectory,
    private readonly repository: DeliveriesRepository,
    private readonly dispatcher: DeliveryDispatcher,
    private readonly config: DeliveriesConfig,
    private readonly metrics: DeliveriesMetrics,
  ) {}

  async handle(events: readonly WebhookEvent[]): Promise<void> {
    const rows: NewDelivery[] = [];
    const sources = new Map<string, WebhookEvent>();
    for (const event of events) {
      for (const { record } of this.directory.matching(event.facts)) {
        rows.push({
          subscriberId: record.id,
          eventId: event.eventId,
          eventType: event.facts.eventType,
          payload: event.payload,
          state: record.state === 'ALIVE' ? 'PENDING' : 'MISSED',
        });
        sources.set(event.eventId, event);
      }
    }
    const jobs: DeliveryJob[] = [];
    for (let i = 0; i < rows.length; i += INSERT_SLICE) {
      const slice = rows.slice(i, i + INSERT_SLICE);
      const stored = await this.repository.insertAndRead(slice, this.config.WEBHOOK_PENDING_LEASE_MS);
      for (const row of stored) {
        const event = sources.get(row.eventId);
        if (event === undefined) continue;
        if (row.state === 'MISSED' && row.attempts === 0) this.metrics.deliveries.inc({ outcome: 'missed' });
        if (row.state !== 'PENDING') continue; // delivered, retrying or kept already: a redelivered event
        jobs.push({
          deliveryId: row.id,
          subscriberId: row.subscriberId,
          eventId: row.eventId,
          eventType: event.facts.eventType,
          payload: event.payload,
          attempt: row.attempts + 1,
          firstAttemptAt: row.createdAt.toISOString(),
          source: event.source,
        });
      }
    }
    await this.dispatcher.whenCapacity();
    this.dispatcher.submit(jobs);
  }
}
