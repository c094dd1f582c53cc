import { Controller } from '@nestjs/common';
import { ConsumerGroups, type MessageBatchV1, SendRetryTiers, Topics } from '@ums/contracts';
import { ConsumeTopic, type ConsumedMessage } from '@ums/platform';
import { SENDER_GROUP } from './retry-routing.service';
import { SendBatchService } from './send-batch.service';
import { SEND_BATCHES_PER_PARTITION, SEND_PARTITIONS_CONCURRENTLY } from './send-concurrency.constants';

/**
 * Campaign batches, single sends (priority lane, their own group so they never wait behind
 * campaign batches) and the send retry tiers (read by `notification-sender.retry`, one topic per
 * delay). Several batches of a partition are sent at once; offsets still commit in order.
 */
// A controller of the Kafka transport (event patterns), with no HTTP routes.
@Controller()
export class SendBatchesConsumer {
  constructor(private readonly sender: SendBatchService) {}

  @ConsumeTopic({
    topic: Topics.batches,
    groupId: SENDER_GROUP,
    chunkSize: 1,
    concurrency: SEND_BATCHES_PER_PARTITION,
    partitionsConsumedConcurrently: SEND_PARTITIONS_CONCURRENTLY,
    retryTiers: SendRetryTiers,
  })
  async onBatch(messages: readonly ConsumedMessage<MessageBatchV1>[]): Promise<void> {
    await Promise.all(messages.map((message) => this.sender.send(message)));
  }

  @ConsumeTopic({
    topic: Topics.prioritySends,
    groupId: ConsumerGroups.senderPriority,
    chunkSize: 1,
    concurrency: SEND_BATCHES_PER_PARTITION,
    partitionsConsumedConcurrently: SEND_PARTITIONS_CONCURRENTLY,
    // Failures wait on the same tiers, which the campaign group's retry flow reads.
    retryTiers: SendRetryTiers,
    consumeRetryTiers: false,
  })
  async onPrioritySend(messages: readonly ConsumedMessage<MessageBatchV1>[]): Promise<void> {
    await Promise.all(messages.map((message) => this.sender.send(message)));
  }
}
