import { Injectable } from '@nestjs/common';
import { ConsumerGroups, DeliveryErrorCode, Topics } from '@ums/contracts';
import { subscriberMatches } from '@ums/domain';
import { TopicRangeReader, UnavailableError, withNamedLock } from '@ums/platform';
import { DataSource } from 'typeorm';
import type { SubscriberRecord } from '../subscribers/subscriber.record';
import { DeliveriesConfig } from './deliveries.config';
import { DeliveriesRepository, type NewDelivery } from './deliveries.repository';
import type { DeliveryJob } from './delivery.record';
import { WEBHOOK_REPLAY_READ_TIMEOUT_MS } from './delivery-tuning.constants';
import {
  inboundWebhookEvent,
  lifecycleWebhookEvent,
  statusWebhookEvent,
  type WebhookEvent,
} from './webhook-event';

/** Events per statement, as the fan-out writes them. */
const REQUEUE_SLICE = 500;

/**
 * A replay by time: every status, inbound and run lifecycle event since a time that the subscriber's filter takes,
 * read from the topics (which keep them 7 days) rather than from delivery rows, which exist only for
 * deliveries that were not settled at their first attempt. Each event becomes a PENDING delivery (a
 * new row, or its delivered or dead-lettered row again) handed to `publish` a batch at a time; rows
 * still owed are left to their own attempts. One replay at a time across the replicas (a named lock):
 * they share the reading consumer group.
 */
@Injectable()
export class ReplaySinceService {
  constructor(
    private readonly reader: TopicRangeReader,
    private readonly repository: DeliveriesRepository,
    private readonly config: DeliveriesConfig,
    private readonly dataSource: DataSource,
  ) {}

  /** Returns how many deliveries were queued. */
  async replay(
    subscriber: SubscriberRecord,
    since: Date,
    publish: (jobs: readonly DeliveryJob[]) => Promise<void>,
  ): Promise<number> {
    const filter = {
      tenantId: subscriber.tenantId,
      eventTypes: subscriber.eventTypes,
      campaignId: subscriber.campaignId,
    };
    let replayed = 0;
    const requeue = async (events: readonly WebhookEvent[]): Promise<void> => {
      const taken = events.filter((event) => subscriberMatches(filter, event.facts));
      for (let i = 0; i < taken.length; i += REQUEUE_SLICE) {
        const jobs = await this.requeue(subscriber.id, taken.slice(i, i + REQUEUE_SLICE));
        await publish(jobs);
        replayed += jobs.length;
      }
    };
    await this.locked(async () => {
      const read = {
        groupId: ConsumerGroups.dispatcherReplay,
        since,
        timeoutMs: WEBHOOK_REPLAY_READ_TIMEOUT_MS,
      };
      await this.reader.read({
        ...read,
        topic: Topics.messageStatus,
        onBatch: (records) => requeue(records.map(statusWebhookEvent)),
      });
      await this.reader.read({
        ...read,
        topic: Topics.inboundMessages,
        onBatch: (records) => requeue(records.map(inboundWebhookEvent)),
      });
      await this.reader.read({
        ...read,
        topic: Topics.runLifecycle,
        onBatch: (records) => requeue(records.map(lifecycleWebhookEvent)),
      });
    });
    return replayed;
  }

  /** The events as PENDING deliveries under a lease; returns those taken (new, or settled before). */
  private async requeue(subscriberId: string, events: readonly WebhookEvent[]): Promise<DeliveryJob[]> {
    if (events.length === 0) return [];
    const leaseMs = this.config.WEBHOOK_PENDING_LEASE_MS;
    const rows: NewDelivery[] = events.map((event) => ({
      subscriberId,
      eventId: event.eventId,
      eventType: event.facts.eventType,
      payload: event.payload,
      state: 'PENDING',
    }));
    const stored = new Map((await this.repository.readKeys(rows)).map((row) => [row.eventId, row]));
    await this.repository.insert(
      rows.filter((row) => !stored.has(row.eventId)),
      leaseMs,
    );
    const settled = [...stored.values()].filter(
      (r) => r.state === 'DELIVERED' || r.state === 'DEAD_LETTERED',
    );
    const taken = await this.repository.reopen(
      settled.map((r) => r.id),
      leaseMs,
    );
    const firstAttemptAt = new Date().toISOString();
    const byId = new Map(events.map((event) => [event.eventId, event]));
    const jobs: DeliveryJob[] = [];
    for (const row of await this.repository.readKeys(rows)) {
      const fresh = !stored.has(row.eventId) && row.state === 'PENDING' && row.attempts === 0;
      if (!fresh && !taken.has(row.id)) continue;
      const event = byId.get(row.eventId);
      if (event === undefined) continue;
      jobs.push({
        deliveryId: row.id,
        subscriberId,
        eventId: row.eventId,
        eventType: event.facts.eventType,
        payload: event.payload,
        attempt: 1,
        firstAttemptAt,
        source: event.source,
      });
    }
    return jobs;
  }

  private async locked(work: () => Promise<void>): Promise<void> {
    const lock = {
      name: 'ums.webhook_replay.',
      waitSeconds: Math.ceil(WEBHOOK_REPLAY_READ_TIMEOUT_MS / 1000),
      perDatabase: true,
    };
    const { acquired } = await withNamedLock(this.dataSource, lock, work);
    if (!acquired) {
      throw new UnavailableError(
        DeliveryErrorCode.ReplayBusy,
        'Another replay by time is running; retry once it has finished',
      );
    }
  }
}
