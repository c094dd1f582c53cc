import type { MessageBatchV1 } from '@ums/contracts';
import { type Consumer, logLevel, Kafka } from 'kafkajs';
import { createPool, type Pool } from 'mysql2/promise';
import type { TestMysqlSettings } from '../mysql/test-database';

export interface BatchProbeOptions {
  readonly brokers: readonly string[];
  /** Physical topic name (with the namespace). */
  readonly topic: string;
  readonly groupId: string;
  /**
   * With a database, every consumed batch is also finished the way the notification sender
   * reports it (its PENDING messages SENT, the run's batches_finished counted), so the expander's
   * backpressure and the run's completion can be exercised before a sender exists.
   */
  readonly finishIn?: TestMysqlSettings;
  /** Time taken per batch before finishing it, to play a slow sender (batches of a partition are sequential). */
  readonly finishDelayMs?: number;
}

export interface ObservedBatch {
  readonly batchId: string;
  readonly runId: string | undefined;
  readonly seq: number;
  readonly epoch: number;
  readonly size: number;
  /** The campaign priority the batch carries (absent: the default, 1). */
  readonly priority: number | undefined;
  /** Kafka append time (ms): when the expander published it. */
  readonly appendedAt: number;
}

/**
 * Reads every batch on a topic and counts each message id, so a test can prove that every
 * recipient was published at least once and bound how many were published again.
 */
export class BatchProbe {
  readonly timesSeen = new Map<string, number>();
  readonly batches: ObservedBatch[] = [];

  private constructor(
    private readonly consumer: Consumer,
    private readonly pool: Pool | undefined,
    private readonly finishDelayMs: number,
  ) {}

  static async start(options: BatchProbeOptions): Promise<BatchProbe> {
    const kafka = new Kafka({
      clientId: 'batch-probe',
      brokers: [...options.brokers],
      logLevel: logLevel.NOTHING,
    });
    const consumer = kafka.consumer({
      groupId: options.groupId,
      sessionTimeout: 10_000,
      heartbeatInterval: 1_000,
    });
    const settings = options.finishIn;
    const pool =
      settings === undefined
        ? undefined
        : createPool({
            host: settings.host,
            port: settings.port,
            user: settings.user,
            password: settings.password,
            database: settings.database,
            connectionLimit: 4,
          });
    const probe = new BatchProbe(consumer, pool, options.finishDelayMs ?? 0);
    await consumer.connect();
    await consumer.subscribe({ topic: options.topic, fromBeginning: true });
    await consumer.run({
      partitionsConsumedConcurrently: 12,
      eachMessage: async ({ message }) => {
        if (message.value === null) return;
        const batch = JSON.parse(message.value.toString('utf8')) as MessageBatchV1;
        await probe.record(batch, Number(message.timestamp));
      },
    });
    return probe;
  }

  /** Message ids published more than once, and how many extra copies in all. */
  duplicates(): { messages: number; extraCopies: number } {
    let messages = 0;
    let extraCopies = 0;
    for (const times of this.timesSeen.values()) {
      if (times > 1) {
        messages++;
        extraCopies += times - 1;
      }
    }
    return { messages, extraCopies };
  }

  async stop(): Promise<void> {
    await this.consumer.disconnect();
    await this.pool?.end();
  }

  private async record(batch: MessageBatchV1, appendedAt: number): Promise<void> {
    const ids = batch.items.map((item) => item.messageId);
    if (this.finishDelayMs > 0) await new Promise((resolve) => setTimeout(resolve, this.finishDelayMs));
    if (this.pool !== undefined && batch.runId !== undefined) {
      const [result] = await this.pool.query(
        `UPDATE messages SET state = 'SENT', sent_at = UTC_TIMESTAMP(3), updated_at = UTC_TIMESTAMP(3)
          WHERE id IN (?) AND state = 'PENDING'`,
        [ids],
      );
      const sent = (result as { affectedRows: number }).affectedRows;
      await this.pool.query(
        `UPDATE runs SET batches_finished = batches_finished + 1, sent = sent + ?, pending = pending - ?
          WHERE id = ?`,
        [sent, sent, batch.runId],
      );
    }
    for (const id of ids) this.timesSeen.set(id, (this.timesSeen.get(id) ?? 0) + 1);
    this.batches.push({
      batchId: batch.batchId,
      runId: batch.runId,
      seq: batch.seq,
      epoch: batch.leaseEpoch,
      size: ids.length,
      priority: batch.priority,
      appendedAt,
    });
  }
}
