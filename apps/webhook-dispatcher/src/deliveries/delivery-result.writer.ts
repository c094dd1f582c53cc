import { Injectable } from '@nestjs/common';
import { Topics } from '@ums/contracts';
import type { WebhookDeadLetter, WebhookRetryCopy, WebhookTakedown, WebhookWriteBackPlan } from '@ums/domain';
import {
  buildDeadLetter,
  KafkaProducer,
  type RawRecord,
  retryForwardHeaders,
  retryInfrastructure,
} from '@ums/platform';
import { PinoLogger } from 'nestjs-pino';
import { SubscribersRepository } from '../subscribers/subscribers.repository';
import { DeliveriesConfig } from './deliveries.config';
import { DeliveriesRepository } from './deliveries.repository';
import type { DeliverySettlement } from './delivery.record';
import { SubscriberTakedown } from './subscriber-takedown.service';

/** Records per produce request, well under the broker's message size limit. */
const PUBLISH_SLICE = 200;
/**
 * A subscriber's last success is stamped at most this often per replica: stamped on every write-back
 * (about 100 a second under load), the one subscribers row was 4% of the database's statement time.
 */
const SUCCESS_STAMP_EVERY_MS = 1_000;

/** How a write-back is carried out: when it happens, and whether the process is stopping. */
export interface WriteBackContext {
  readonly now: number;
  readonly stopped: () => boolean;
}

/** A retry-tier copy as its record: keyed by subscriber, with the forward headers every tier writer sets. */
export function retryCopyRecord(copy: WebhookRetryCopy): RawRecord {
  return { key: copy.key, value: JSON.stringify(copy.value), headers: retryForwardHeaders({}, copy.forward) };
}

/** A delivery out of retries as its record on the dead-letter topic. */
export function deadLetterRecord(decision: WebhookDeadLetter, now: number): RawRecord {
  const letter = buildDeadLetter(
    {
      ...decision.source,
      key: Buffer.from(decision.key, 'utf8'),
      value: Buffer.from(JSON.stringify(decision.value), 'utf8'),
      headers: decision.headers,
    },
    decision.cause,
    new Date(now),
  );
  return { key: Topics.deadLetters.keyOf(letter), value: JSON.stringify(letter) };
}

/** Every record of a plan, by topic: the retry tiers', then the dead letters. */
export function planRecords(plan: WebhookWriteBackPlan, now: number): [string, RawRecord[]][] {
  const byTopic: [string, RawRecord[]][] = [];
  for (const [tier, copies] of plan.retries) byTopic.push([tier, copies.map(retryCopyRecord)]);
  byTopic.push([Topics.deadLetters.name, plan.deadLetters.map((d) => deadLetterRecord(d, now))]);
  return byTopic;
}

/**
 * Carries out a write-back plan: Kafka first (acks=all), so that a row says RETRYING or
 * DEAD_LETTERED only once its message is on the topic; then the rows' settlements, the subscribers'
 * stamps, and the subscribers taken down.
 */
@Injectable()
export class DeliveryResultWriter {
  private readonly successStamped = new Map<string, number>();

  constructor(
    private readonly producer: KafkaProducer,
    private readonly deliveries: DeliveriesRepository,
    private readonly subscribers: SubscribersRepository,
    private readonly takedown: SubscriberTakedown,
    private readonly config: DeliveriesConfig,
    private readonly logger: PinoLogger,
  ) {}

  async execute(plan: WebhookWriteBackPlan, context: WriteBackContext): Promise<void> {
    const publishes: Promise<void>[] = [];
    for (const [topic, records] of planRecords(plan, context.now)) {
      for (let i = 0; i < records.length; i += PUBLISH_SLICE) {
        publishes.push(this.producer.publishRaw(topic, records.slice(i, i + PUBLISH_SLICE)));
      }
    }
    await Promise.all(publishes);
    await this.settle(plan.settlements, context.stopped);
    await this.stamp(plan.successes, plan.lastErrors, context.now);
    await this.takeDown(plan.takedowns);
  }

  /** Success stamps (at most one per subscriber and interval) and failure stamps with the last error. */
  async stamp(
    successes: ReadonlySet<string>,
    lastErrors: ReadonlyMap<string, string>,
    now: number,
  ): Promise<void> {
    await this.subscribers.stamp(this.successesToStamp(successes, now), lastErrors);
  }

  async takeDown(takedowns: readonly WebhookTakedown[]): Promise<void> {
    for (const takedown of takedowns) await this.takedown.takeDown(takedown);
  }

  /**
   * Writes the results, again while MySQL is unavailable (for half the pending lease at most; not
   * during a shutdown): a write-back dropped here leaves delivered rows PENDING, and the sweeper
   * would send them again. Its UPDATEs are idempotent, and the Kafka publishes before it are not
   * repeated.
   */
  private settle(settlements: readonly DeliverySettlement[], stopped: () => boolean): Promise<void> {
    return retryInfrastructure(() => this.deliveries.settle(settlements), {
      forMs: this.config.WEBHOOK_PENDING_LEASE_MS / 2,
      stopped,
      onRetry: (error, attempt, delayMs) =>
        this.logger.warn(
          { err: error, attempt, delayMs, count: settlements.length },
          'Writing delivery results failed (database unavailable); retrying',
        ),
    });
  }

  private successesToStamp(successes: ReadonlySet<string>, now: number): string[] {
    const due: string[] = [];
    for (const subscriberId of successes) {
      if (now - (this.successStamped.get(subscriberId) ?? 0) < SUCCESS_STAMP_EVERY_MS) continue;
      this.successStamped.set(subscriberId, now);
      due.push(subscriberId);
    }
    // Bounded: stamps older than the interval are only a lower bound on the next one.
    if (this.successStamped.size > 10_000) {
      for (const [id, at] of this.successStamped)
        if (now - at >= SUCCESS_STAMP_EVERY_MS) this.successStamped.delete(id);
    }
    return due;
  }
}
