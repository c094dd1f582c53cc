import { Injectable } from '@nestjs/common';
import { Topics, type WebhookDeliveryV1, DeliveryErrorCode, SubscriberErrorCode } from '@ums/contracts';
import { ConflictError, KafkaProducer, NotFoundError, type TenantFilter } from '@ums/platform';
import type { DeliveryView as ApiDeliveryView } from '@ums/contracts';
import { SubscribersRepository } from '../subscribers/subscribers.repository';
import { subscriberNotFound } from '../subscribers/subscribers.service';
import { DeliveriesConfig } from './deliveries.config';
import { DeliveriesRepository } from './deliveries.repository';
import type { DeliveryJob, DeliveryRecord } from './delivery.record';
import type { ListDeliveriesDto } from './delivery.dto';
import { ReplaySinceService } from './replay-since.service';
import type { SubscriberRecord } from '../subscribers/subscriber.record';

/** A delivery as the API shows it: the view shared with the operator CLI, with the state typed. */
export interface DeliveryView extends ApiDeliveryView {
  readonly state: DeliveryRecord['state'];
}

/**
 * Listing and replaying deliveries; replays go through ums.webhook.deliveries.v1 like any attempt.
 * The subscriber is looked up within the caller's tenant first (another tenant's is not found), and
 * every delivery read or replayed is that subscriber's.
 */
@Injectable()
export class DeliveriesService {
  constructor(
    private readonly repository: DeliveriesRepository,
    private readonly subscribers: SubscribersRepository,
    private readonly producer: KafkaProducer,
    private readonly config: DeliveriesConfig,
    private readonly replays: ReplaySinceService,
  ) {}

  async list(
    subscriberId: string,
    tenant: TenantFilter,
    query: ListDeliveriesDto,
  ): Promise<{ items: DeliveryView[]; nextBefore: string | null }> {
    await this.requireSubscriber(subscriberId, tenant);
    const rows = await this.repository.list(subscriberId, query.state, query.before, query.limit);
    return {
      items: rows.map(toView),
      nextBefore: rows.length === query.limit ? (rows[rows.length - 1]?.id ?? null) : null,
    };
  }

  /** One delivery again (delivered or dead-lettered), as a fresh first attempt with the same webhook-id. */
  async replayOne(subscriberId: string, tenant: TenantFilter, deliveryId: string): Promise<DeliveryView> {
    await this.requireAlive(subscriberId, tenant);
    const [row] = await this.repository.findMany([deliveryId]);
    if (row?.subscriberId !== subscriberId) {
      throw new NotFoundError(
        DeliveryErrorCode.NotFound,
        `Delivery ${deliveryId} of ${subscriberId} does not exist`,
      );
    }
    if (row.state !== 'DELIVERED' && row.state !== 'DEAD_LETTERED') {
      throw new ConflictError(
        DeliveryErrorCode.NotSettled,
        `Delivery ${deliveryId} is ${row.state}; only settled deliveries are replayed`,
      );
    }
    const jobs = await this.repository.takeForReplay(
      subscriberId,
      row.createdAt,
      String(BigInt(deliveryId) - 1n),
      1,
      this.config.WEBHOOK_PENDING_LEASE_MS,
    );
    await this.publish(jobs.filter((j) => j.deliveryId === deliveryId));
    const [after] = await this.repository.findMany([deliveryId]);
    return toView(after ?? row);
  }

  /**
   * Every event since a time that the subscriber takes, read from the topics (ReplaySinceService);
   * returns how many deliveries were queued.
   */
  async replaySince(subscriberId: string, tenant: TenantFilter, since: Date): Promise<{ replayed: number }> {
    const subscriber = await this.requireAlive(subscriberId, tenant);
    return { replayed: await this.replays.replay(subscriber, since, (jobs) => this.publish(jobs)) };
  }

  private async publish(jobs: readonly DeliveryJob[]): Promise<void> {
    const values: WebhookDeliveryV1[] = jobs.map((j) => ({
      deliveryId: j.deliveryId,
      subscriberId: j.subscriberId,
      eventId: j.eventId,
      eventType: j.eventType,
      payload: j.payload,
      attempt: 1,
      firstAttemptAt: j.firstAttemptAt,
    }));
    await this.producer.publish(Topics.webhookDeliveries, values);
  }

  private async requireSubscriber(id: string, tenant: TenantFilter): Promise<void> {
    if ((await this.subscribers.find(id, tenant)) === undefined) throw subscriberNotFound(id);
  }

  private async requireAlive(id: string, tenant: TenantFilter): Promise<SubscriberRecord> {
    const subscriber = await this.subscribers.find(id, tenant);
    if (subscriber === undefined) throw subscriberNotFound(id);
    if (subscriber.state !== 'ALIVE') {
      throw new ConflictError(
        SubscriberErrorCode.NotAlive,
        `Subscriber ${id} is ${subscriber.state}; resurrect it first`,
      );
    }
    return subscriber;
  }
}

function toView(row: DeliveryRecord): DeliveryView {
  return {
    id: row.id,
    eventId: row.eventId,
    eventType: row.eventType,
    state: row.state,
    attempts: row.attempts,
    lastStatusCode: row.lastStatusCode,
    lastError: row.lastError,
    nextAttemptAt: row.nextAttemptAt?.toISOString() ?? null,
    deliveredAt: row.deliveredAt?.toISOString() ?? null,
    createdAt: row.createdAt.toISOString(),
  };
}
