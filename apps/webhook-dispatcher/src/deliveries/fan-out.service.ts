import { Injectable } from '@nestjs/common';
import { SubscriberDirectory } from '../subscribers/subscriber-directory.service';
import { DeliveriesConfig } from './deliveries.config';
import { DeliveriesMetrics } from './deliveries.metrics';
import {
  type DeliveryKeyRow,
  DeliveriesRepository,
  deliveryKey,
  type NewDelivery,
} from './deliveries.repository';
import type { DeliveryJob } from './delivery.record';
import { DeliveryDispatcher } from './delivery-dispatcher.service';
import { EarlyAttempts } from './early-attempts.collector';
import type { WebhookEvent } from './webhook-event';

const INSERT_SLICE = 500;
/** A chunk of at least this many events is a backlog: its attempts are made before its rows are written. */
const ATTEMPT_FIRST_AT = 100;
/** How long a backlog chunk waits for its attempts before writing the stragglers' rows PENDING. */
const ATTEMPT_FIRST_GRACE_MS = 1_000;

/**
 * Fans events out to the subscribers whose filter takes them: one deliveries row per (subscriber,
 * event), written in bulk with INSERT IGNORE (a redelivered event creates nothing new), PENDING for
 * live subscribers and MISSED (kept for a resurrect) for dead ones. Resolves once the rows are
 * durable; the offsets commit after that.
 *
 * A few events at a time, the rows are written first and the attempts never hold the consumer, so
 * a slow subscriber costs its neighbours no latency. A backlog chunk (ATTEMPT_FIRST_AT events or
 * more: its events waited anyway) is attempted first, up to ATTEMPT_FIRST_GRACE_MS, and only then
 * written: the deliveries answered 2xx by then leave no row (the events stay on their topics, which a
 * replay by time reads; metrics count them), the rest are inserted PENDING under a lease, and their
 * results are written back as usual. Subscribers whose attempts are slow already are not waited for.
 * A crash before the insert leaves the offsets uncommitted: the events come again and are attempted
 * again (at least once). Rows for the answered ones would be most of the database's writes per relayed
 * message (three events, about 2 KB of redo log).
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
    const keys = new Set<string>();
    for (const event of events) {
      for (const { record } of this.directory.matching(event.facts)) {
        // An event twice in one chunk (a duplicate publish) is one delivery.
        const key = deliveryKey(record.id, event.eventId);
        if (keys.has(key)) continue;
        keys.add(key);
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
    if (events.length >= ATTEMPT_FIRST_AT) {
      await this.attemptFirst(rows, sources);
      return;
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

  private async attemptFirst(
    rows: readonly NewDelivery[],
    sources: ReadonlyMap<string, WebhookEvent>,
  ): Promise<void> {
    const firstAttemptAt = new Date().toISOString();
    const jobs = new Map<NewDelivery, DeliveryJob>();
    for (const row of rows) {
      const event = sources.get(row.eventId);
      if (row.state !== 'PENDING' || event === undefined) continue;
      jobs.set(row, {
        deliveryId: '', // given by EarlyAttempts.adopt once the row exists
        subscriberId: row.subscriberId,
        eventId: row.eventId,
        eventType: row.eventType,
        payload: row.payload,
        attempt: 1,
        firstAttemptAt,
        source: event.source,
      });
    }
    const all = [...jobs.values()];
    const now = Date.now();
    const waitFor = all.filter((job) => !this.dispatcher.isSlow(job.subscriberId, now));
    const early = new EarlyAttempts((finished) => this.dispatcher.settleLater(finished));
    await this.dispatcher.whenCapacity();
    this.dispatcher.submit(all, early.sink);
    await early.settled(waitFor, ATTEMPT_FIRST_GRACE_MS);
    const delivered = early.close();

    const written = rows.filter((row) => {
      const job = jobs.get(row);
      return job === undefined || !delivered.has(job);
    });
    for (let i = 0; i < written.length; i += INSERT_SLICE) {
      await this.repository.insert(written.slice(i, i + INSERT_SLICE), this.config.WEBHOOK_PENDING_LEASE_MS);
    }
    const missed = written.filter((row) => row.state === 'MISSED').length;
    if (missed > 0) this.metrics.deliveries.inc({ outcome: 'missed' }, missed);
    await this.dispatcher.deliveredWithoutRow([...delivered.keys()]);

    const owed = all.filter((job) => !delivered.has(job));
    const stored = new Map<string, DeliveryKeyRow>();
    for (let i = 0; i < owed.length; i += INSERT_SLICE) {
      for (const row of await this.repository.readKeys(owed.slice(i, i + INSERT_SLICE))) {
        stored.set(deliveryKey(row.subscriberId, row.eventId), row);
      }
    }
    early.adopt(new Map(owed.map((job) => [job, stored.get(deliveryKey(job.subscriberId, job.eventId))])));
  }
}
