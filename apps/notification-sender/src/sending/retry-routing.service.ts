import { Injectable } from '@nestjs/common';
import {
  type BatchItemV1,
  ConsumerGroups,
  describeFailure,
  KafkaHeaders,
  type MessageBatchV1,
  MessageHandlingErrorCode,
  SendLane,
  SendRetryTiers,
  Topics,
} from '@ums/contracts';
import {
  buildDeadLetter,
  type ConsumedMessage,
  KafkaProducer,
  originTopicOf,
  type RawRecord,
  retryForwardHeaders,
} from '@ums/platform';
import type { ExhaustedItem, TierRetry } from './settlement-plan';
import { SendingConfig } from './sending.config';
import { SEND_RETRY_JITTER_RATIO } from './send-tuning.constants';

/** The consumer group of campaign batches; its `.retry` group reads the send retry tiers. */
export const SENDER_GROUP = ConsumerGroups.sender;

/** The retry header of a batch whose rows another sender had locked. */
const CONTENDED = describeFailure(MessageHandlingErrorCode.ClaimContended, 'row locked at claim time');

/**
 * Where the messages of a batch that did not settle go on Kafka: retryable ones onto a send retry
 * tier (one record per tier, only those items, marked as a partial retry), exhausted ones onto the
 * dead-letter topic. Tier delays are scaled by SENDER_RETRY_DELAY_PERCENT.
 */
@Injectable()
export class RetryRoutingService {
  /** Each send retry tier's delay, shortest first. */
  readonly tierDelaysMs: readonly number[];
  /** Extra random delay of a retry, as a fraction of its tier's delay. */
  readonly jitterRatio: number;

  constructor(
    private readonly producer: KafkaProducer,
    config: SendingConfig,
  ) {
    this.tierDelaysMs = SendRetryTiers.map((tier) =>
      Math.round(((tier.delayMs ?? 0) * config.SENDER_RETRY_DELAY_PERCENT) / 100),
    );
    this.jitterRatio = SEND_RETRY_JITTER_RATIO;
  }

  /** Puts the retries and the dead letters of a settled claim on Kafka, side by side. */
  async route(
    message: ConsumedMessage<MessageBatchV1>,
    token: string,
    retries: ReadonlyMap<number, TierRetry>,
    exhausted: readonly ExhaustedItem[],
  ): Promise<void> {
    await Promise.all([this.publishRetries(message, token, retries), this.deadLetter(message, exhausted)]);
  }

  /** Offers messages a claim found locked by another transaction again, on the first tier. */
  async retryContended(
    message: ConsumedMessage<MessageBatchV1>,
    token: string,
    items: BatchItemV1[],
  ): Promise<void> {
    const firstTier = this.tierDelaysMs[0] ?? 0;
    await this.publishRetries(
      message,
      token,
      new Map([[0, { items, dueAt: Date.now() + firstTier, lastError: CONTENDED }]]),
    );
  }

  private async publishRetries(
    message: ConsumedMessage<MessageBatchV1>,
    token: string,
    retries: ReadonlyMap<number, TierRetry>,
  ): Promise<void> {
    const batch = message.value;
    const rootId = batch.batchId.split('~')[0] ?? batch.batchId;
    await Promise.all(
      [...retries].map(([tierIndex, retry]) => {
        const tier = SendRetryTiers[tierIndex];
        if (tier === undefined) throw new Error(`no send retry tier ${tierIndex}`);
        const value: MessageBatchV1 = {
          ...batch,
          batchId: `${rootId}~t${tierIndex}~${token.slice(0, 8)}`,
          items: retry.items,
          createdAt: new Date().toISOString(),
        };
        const record: RawRecord = {
          key: tier.keyOf(value),
          value: JSON.stringify(value),
          headers: {
            // The platform continues from this tier if handling the copy itself fails.
            ...retryForwardHeaders(
              {},
              {
                dueAt: retry.dueAt,
                attempt: tierIndex + 1,
                originTopic: originTopicOf(message.headers, {
                  topic: batch.lane === SendLane.Priority ? Topics.prioritySends.name : Topics.batches.name,
                  isRetryTier: message.attempt > 0,
                }),
                lastError: retry.lastError,
              },
            ),
            [KafkaHeaders.partialRetry]: '1',
          },
        };
        return this.producer.publishRaw(tier.name, [record]);
      }),
    );
  }

  private async deadLetter(
    message: ConsumedMessage<MessageBatchV1>,
    exhausted: readonly ExhaustedItem[],
  ): Promise<void> {
    if (exhausted.length === 0) return;
    const value: MessageBatchV1 = { ...message.value, items: exhausted.map((e) => e.item) };
    const letter = buildDeadLetter(
      {
        topic: message.topic,
        partition: message.partition,
        offset: message.offset,
        key: message.key === null ? null : Buffer.from(message.key, 'utf8'),
        value: Buffer.from(JSON.stringify(value), 'utf8'),
        headers: message.headers,
      },
      {
        consumerGroup: SENDER_GROUP,
        errorCode: MessageHandlingErrorCode.RetriesExhausted,
        reason: exhausted.map((e) => `${e.item.messageId}: ${e.error}`).join('\n'),
        attempts: Math.max(...exhausted.map((e) => e.attempts)),
      },
      new Date(),
    );
    await this.producer.publishRaw(Topics.deadLetters.name, [
      { key: Topics.deadLetters.keyOf(letter), value: JSON.stringify(letter) },
    ]);
  }
}
