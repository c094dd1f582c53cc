import { Controller } from '@nestjs/common';
import {
  ConsumerGroups,
  type InboundMessageV1,
  type MessageStatusV1,
  type RunLifecycleV1,
  Topics,
  type WebhookDeliveryV1,
  WebhookRetryTiers,
} from '@ums/contracts';
import { ConsumeTopic, type ConsumedMessage } from '@ums/platform';
import { DeliveriesConfig } from './deliveries.config';
import { DeliveriesRepository } from './deliveries.repository';
import { DeliveryDispatcher } from './delivery-dispatcher.service';
import { FanOutService } from './fan-out.service';
import { inboundWebhookEvent, lifecycleWebhookEvent, statusWebhookEvent } from './webhook-event';

const STATUS_CHUNK = 1_000;

/**
 * Status, inbound and run lifecycle events fanned out to subscribers, and deliveries to attempt again: replays and
 * retries. Retries wait on the ums.webhook.retry-* tiers, read by their own group (the platform holds
 * each tier partition until its head is due), so fresh events never queue behind them. Fan-out runs
 * one chunk per partition at a time so delivery ids follow event order within a partition (the order a
 * resurrect replays in); the attempts themselves run outside the handler. Status chunks hold up to
 * STATUS_CHUNK events: a campaign's events are all on one partition, so its relay is one chunk after
 * another (attempts, insert, offset commit), and the bigger the chunk, the fewer of those round trips
 * per event (the relay's lag behind the last callback is in docs/benchmarks.md).
 */
// A controller of the Kafka transport (event patterns), with no HTTP routes.
@Controller()
export class DeliveriesConsumer {
  constructor(
    private readonly fanOut: FanOutService,
    private readonly repository: DeliveriesRepository,
    private readonly dispatcher: DeliveryDispatcher,
    private readonly config: DeliveriesConfig,
  ) {}

  @ConsumeTopic({
    topic: Topics.messageStatus,
    groupId: ConsumerGroups.dispatcherStatus,
    chunkSize: STATUS_CHUNK,
    concurrency: 1,
  })
  async onStatus(messages: readonly ConsumedMessage<MessageStatusV1>[]): Promise<void> {
    await this.fanOut.handle(messages.map(statusWebhookEvent));
  }

  @ConsumeTopic({
    topic: Topics.inboundMessages,
    groupId: ConsumerGroups.dispatcherInbound,
    chunkSize: 200,
    concurrency: 1,
  })
  async onInbound(messages: readonly ConsumedMessage<InboundMessageV1>[]): Promise<void> {
    await this.fanOut.handle(messages.map(inboundWebhookEvent));
  }

  /** Run lifecycle events, to subscribers that asked for their `run.<event>` type. */
  @ConsumeTopic({
    topic: Topics.runLifecycle,
    groupId: ConsumerGroups.dispatcherLifecycle,
    chunkSize: 200,
    concurrency: 1,
  })
  async onLifecycle(messages: readonly ConsumedMessage<RunLifecycleV1>[]): Promise<void> {
    await this.fanOut.handle(messages.map(lifecycleWebhookEvent));
  }

  /**
   * Replays (main topic) and retries (tiers, once due). Rows still owed are leased again before their
   * attempt; rows settled meanwhile (delivered, or kept as MISSED for a dead subscriber) are skipped.
   */
  @ConsumeTopic({
    topic: Topics.webhookDeliveries,
    groupId: ConsumerGroups.dispatcherDeliveries,
    retryTiers: WebhookRetryTiers,
    chunkSize: 200,
    concurrency: 2,
  })
  async onDelivery(messages: readonly ConsumedMessage<WebhookDeliveryV1>[]): Promise<void> {
    const taken = await this.repository.lease(
      messages.map((m) => m.value.deliveryId),
      this.config.WEBHOOK_PENDING_LEASE_MS,
    );
    await this.dispatcher.whenCapacity();
    this.dispatcher.submit(
      messages
        // A delivery twice in one chunk (a duplicate publish) is attempted once.
        .filter((m) => taken.delete(m.value.deliveryId))
        .map((m) => ({
          deliveryId: m.value.deliveryId,
          subscriberId: m.value.subscriberId,
          eventId: m.value.eventId,
          eventType: m.value.eventType,
          payload: m.value.payload,
          attempt: m.value.attempt,
          firstAttemptAt: m.value.firstAttemptAt,
          source: { topic: m.topic, partition: m.partition, offset: m.offset },
        })),
    );
  }
}
