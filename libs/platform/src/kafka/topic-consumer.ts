import { decodeMessage, describeIssues, KafkaHeaders, Topics, type TopicDefinition } from '@ums/contracts';
import type { Consumer, EachBatchPayload, Kafka, KafkaMessage } from 'kafkajs';
import type { PinoLogger } from 'nestjs-pino';
import { errorCode, errorMessage } from '../errors/coded-error';
import { type ConsumeTopicOptions } from './consume-topic.decorator';
import { type ConsumedMessage, type MessageHandler, NonRetryableError } from './consumed-message';
import { buildDeadLetter, decodeHeaders, type FailedRecord, headerValue } from './dead-letter.builder';
import { nextHop, parseDueAt } from './delay-tier-schedule';
import type { KafkaMetrics, ProcessOutcome } from './kafka.metrics';
import type { KafkaNames } from './kafka-names';
import type { KafkaProducer, RawRecord } from './kafka-producer.service';
import { OffsetWatermark } from './offset-watermark';
import { runBounded } from './run-bounded';

const HEARTBEAT_EVERY_MS = 1_000;
const IDLE_STALL_MS = 60_000;

export interface ConsumerHealth {
  readonly ok: boolean;
  readonly detail?: string;
}

interface Flow {
  readonly consumer: Consumer;
  readonly groupId: string;
  /** Delay-tier flow: holds each message until its due time. */
  readonly delayed: boolean;
  lastActivity: number;
  crashed?: string;
  readonly batchesInFlight: Map<string, number>;
}

/**
 * Runs one handler registration: a consumer group on the main topic and, when the handler has
 * retry tiers, a second group on the tier topics, so that waiting retries never hold back fresh
 * messages. Offsets are committed in order and only for messages whose work is finished: handled,
 * forwarded to a retry tier, or dead-lettered (each of those acknowledged by Kafka first).
 */
export class TopicConsumer<V extends object> {
  private readonly flows: Flow[] = [];
  private readonly resumeTimers = new Set<NodeJS.Timeout>();
  private readonly chunkSize: number;
  private readonly concurrency: number;
  private readonly inPlaceAttempts: number;
  private readonly tiers: readonly TopicDefinition<V>[];
  private stopping = false;

  constructor(
    private readonly options: ConsumeTopicOptions<V>,
    private readonly handler: MessageHandler<V>,
    private readonly kafka: Kafka,
    private readonly producer: KafkaProducer,
    private readonly metrics: KafkaMetrics,
    private readonly logger: PinoLogger,
    private readonly names: KafkaNames,
    /** KafkaConfig's values, validated there: the one place their defaults live. */
    private readonly sessionTimeoutMs: number,
    private readonly fetchMaxBytes: number,
  ) {
    this.tiers = options.retryTiers ?? [];
    this.chunkSize = Math.max(1, options.chunkSize ?? 1);
    this.concurrency = Math.max(1, options.concurrency ?? 4);
    this.inPlaceAttempts = Math.max(1, options.inPlaceAttempts ?? (this.tiers.length > 0 ? 1 : 3));
  }

  /** Physical names (with the namespace). */
  get topicNames(): string[] {
    const tiers = this.options.consumeRetryTiers === false ? [] : this.tiers;
    return [this.options.topic.name, ...tiers.map((t) => t.name)].map((name) => this.names.topic(name));
  }

  async start(): Promise<void> {
    await this.startFlow(
      this.names.group(this.options.groupId),
      [this.names.topic(this.options.topic.name)],
      false,
    );
    if (this.tiers.length > 0 && this.options.consumeRetryTiers !== false) {
      await this.startFlow(
        this.names.group(`${this.options.groupId}.retry`),
        this.tiers.map((t) => this.names.topic(t.name)),
        true,
      );
    }
  }

  /** Stops taking new chunks, lets in-flight ones finish and commit, then leaves the group. */
  async stop(): Promise<void> {
    this.stopping = true;
    for (const timer of this.resumeTimers) clearTimeout(timer);
    this.resumeTimers.clear();
    await Promise.all(this.flows.map((flow) => flow.consumer.disconnect()));
  }

  health(now = Date.now()): ConsumerHealth {
    const stallMs = this.options.stallTimeoutMs ?? 300_000;
    for (const flow of this.flows) {
      if (flow.crashed !== undefined)
        return { ok: false, detail: `${flow.groupId} crashed: ${flow.crashed}` };
      for (const [batch, startedAt] of flow.batchesInFlight) {
        if (now - startedAt > stallMs) return { ok: false, detail: `${flow.groupId} stalled on ${batch}` };
      }
      if (now - flow.lastActivity > IDLE_STALL_MS) {
        return {
          ok: false,
          detail: `${flow.groupId} silent for ${Math.round((now - flow.lastActivity) / 1000)} s`,
        };
      }
    }
    return { ok: this.flows.length > 0, detail: this.flows.length > 0 ? undefined : 'not started' };
  }

  private async startFlow(groupId: string, topics: string[], delayed: boolean): Promise<void> {
    const consumer = this.kafka.consumer({
      groupId,
      sessionTimeout: this.sessionTimeoutMs,
      // A rebalance waits this long for members that have not rejoined (a frozen one holds everybody up).
      rebalanceTimeout: 2 * this.sessionTimeoutMs,
      heartbeatInterval: Math.min(3_000, Math.floor(this.sessionTimeoutMs / 5)),
      allowAutoTopicCreation: false,
      maxBytesPerPartition: 1_048_576,
      maxBytes: this.fetchMaxBytes,
      maxWaitTimeInMs: 500,
    });
    const flow: Flow = { consumer, groupId, delayed, lastActivity: Date.now(), batchesInFlight: new Map() };
    const touch = (): void => {
      flow.lastActivity = Date.now();
    };
    const { events } = consumer;
    consumer.on(events.FETCH_START, touch);
    consumer.on(events.HEARTBEAT, touch);
    consumer.on(events.GROUP_JOIN, () => {
      touch();
      flow.crashed = undefined;
    });
    consumer.on(events.END_BATCH_PROCESS, ({ payload }) => {
      touch();
      this.metrics.lag.set(
        { topic: payload.topic, partition: String(payload.partition), group: groupId },
        Number(payload.offsetLag),
      );
    });
    consumer.on(events.CRASH, ({ payload }) => {
      this.metrics.crashes.inc({ group: groupId });
      this.logger.error({ groupId, err: payload.error, restart: payload.restart }, 'Kafka consumer crashed');
      if (!payload.restart) flow.crashed = payload.error.message;
    });
    consumer.on(events.STOP, () => {
      if (!this.stopping) flow.crashed = 'stopped';
    });
    this.flows.push(flow);
    await consumer.connect();
    // A new group reads everything retained: starting at "latest" would skip messages.
    await consumer.subscribe({ topics, fromBeginning: true });
    await consumer.run({
      autoCommit: false,
      eachBatchAutoResolve: false,
      partitionsConsumedConcurrently: this.options.partitionsConsumedConcurrently ?? 4,
      eachBatch: (payload) => this.onBatch(flow, payload),
    });
  }

  private async onBatch(flow: Flow, payload: EachBatchPayload): Promise<void> {
    const { batch } = payload;
    if (batch.messages.length === 0) return;
    const batchKey = `${batch.topic}[${batch.partition}]@${batch.firstOffset() ?? '?'}`;
    flow.batchesInFlight.set(batchKey, Date.now());
    // Long batches keep the group membership alive; kafkajs throttles to heartbeatInterval.
    const heartbeat = setInterval(() => {
      payload.heartbeat().catch((error: unknown) => {
        this.logger.warn({ groupId: flow.groupId, err: error }, 'Heartbeat failed during a batch');
      });
    }, HEARTBEAT_EVERY_MS);
    try {
      let messages = batch.messages;
      let holdUntil: number | undefined;
      if (flow.delayed) {
        const now = Date.now();
        for (let i = 0; i < messages.length; i++) {
          const dueAt = parseDueAt(headerValue(messages[i]?.headers, KafkaHeaders.dueAt));
          if (dueAt > now) {
            holdUntil = dueAt;
            messages = messages.slice(0, i);
            break;
          }
        }
      }
      if (messages.length > 0) await this.processMessages(flow, payload, messages);
      if (holdUntil !== undefined && payload.isRunning() && !payload.isStale()) {
        this.holdPartition(payload, holdUntil);
      }
    } finally {
      clearInterval(heartbeat);
      flow.batchesInFlight.delete(batchKey);
    }
  }

  /**
   * Pauses only this tier partition until its head message is due. The message stays unresolved,
   * so kafkajs fetches it again after resume; other tiers and partitions keep flowing meanwhile.
   */
  private holdPartition(payload: EachBatchPayload, until: number): void {
    const resume = payload.pause();
    const timer = setTimeout(
      () => {
        this.resumeTimers.delete(timer);
        if (!this.stopping) resume();
      },
      Math.max(0, until - Date.now()),
    );
    this.resumeTimers.add(timer);
  }

  private async processMessages(
    flow: Flow,
    payload: EachBatchPayload,
    messages: readonly KafkaMessage[],
  ): Promise<void> {
    const { batch } = payload;
    const watermark = new OffsetWatermark(messages.map((m) => m.offset));
    const chunks: KafkaMessage[][] = [];
    for (let i = 0; i < messages.length; i += this.chunkSize)
      chunks.push(messages.slice(i, i + this.chunkSize));

    let pendingCommit: string | undefined;
    let committing: Promise<void> | undefined;
    // Commits run one at a time and always with the newest watermark, so they never go backwards.
    const drainCommits = async (): Promise<void> => {
      while (pendingCommit !== undefined) {
        const offset = pendingCommit;
        pendingCommit = undefined;
        await payload.commitOffsetsIfNecessary({
          topics: [{ topic: batch.topic, partitions: [{ partition: batch.partition, offset }] }],
        });
      }
    };
    const requestCommit = (offset: string): Promise<void> => {
      pendingCommit = offset;
      committing ??= drainCommits().finally(() => {
        committing = undefined;
      });
      return committing;
    };

    await runBounded(chunks, this.concurrency, async (chunk) => {
      if (!payload.isRunning() || payload.isStale()) return; // left unresolved: fetched again by the owner
      const finished = await this.processChunk(flow, batch.topic, batch.partition, chunk, payload);
      if (!finished) return;
      const commitOffset = watermark.complete(chunk.map((m) => m.offset));
      if (commitOffset !== undefined) {
        payload.resolveOffset(watermark.lastResolved() as string);
        await requestCommit(commitOffset);
      }
    });
    if (committing !== undefined) await committing;
  }

  /** Returns true once the chunk's outcome is durable (handled, forwarded or dead-lettered). */
  private async processChunk(
    flow: Flow,
    topic: string,
    partition: number,
    chunk: readonly KafkaMessage[],
    payload: EachBatchPayload,
  ): Promise<boolean> {
    const valid: ConsumedMessage<V>[] = [];
    const raw = new Map<string, FailedRecord>();
    const deadLetters: RawRecord[] = [];
    for (const message of chunk) {
      const headers = decodeHeaders(message.headers);
      const record: FailedRecord = {
        topic,
        partition,
        offset: message.offset,
        key: message.key,
        value: message.value,
        headers,
      };
      raw.set(message.offset, record);
      const decoded = decodeMessage(this.options.topic.value, message.value);
      if (!decoded.ok) {
        this.logger.warn(
          { topic, partition, offset: message.offset, code: decoded.code, issues: decoded.issues },
          'Invalid message dead-lettered',
        );
        deadLetters.push(
          this.deadLetterRecord(flow, record, decoded.code, describeIssues(decoded.issues), 0),
        );
        this.count(topic, flow, 'invalid');
        continue;
      }
      const attempt = Number(headers[KafkaHeaders.attempt] ?? '0');
      valid.push({
        value: decoded.value,
        key: message.key === null ? null : message.key.toString('utf8'),
        topic,
        partition,
        offset: message.offset,
        headers,
        attempt: Number.isInteger(attempt) && attempt >= 0 ? attempt : 0,
      });
    }

    const forwards = new Map<string, RawRecord[]>();
    if (valid.length > 0) {
      const failure = await this.runHandler(flow, topic, valid, payload);
      if (failure === 'stopping') return false;
      if (failure !== undefined) {
        for (const message of valid) {
          const record = raw.get(message.offset) as FailedRecord;
          const attempts = message.attempt + 1;
          const hop =
            failure.error instanceof NonRetryableError
              ? ({ kind: 'dead-letter', attempt: attempts } as const)
              : nextHop(this.tiers, attempts, Date.now(), this.options.jitterRatio ?? 0.2);
          if (hop.kind === 'tier') {
            const list = forwards.get(hop.topic.name) ?? [];
            list.push({
              key: record.key,
              value: record.value,
              headers: {
                ...record.headers,
                [KafkaHeaders.dueAt]: String(hop.dueAt),
                [KafkaHeaders.attempt]: String(hop.attempt),
                [KafkaHeaders.originTopic]:
                  record.headers[KafkaHeaders.originTopic] ?? this.options.topic.name,
                [KafkaHeaders.lastError]: failure.reason.slice(0, 1024),
              },
            });
            forwards.set(hop.topic.name, list);
            this.count(topic, flow, 'retried');
          } else {
            const code =
              failure.error instanceof NonRetryableError ? failure.error.code : 'RETRIES_EXHAUSTED';
            deadLetters.push(this.deadLetterRecord(flow, record, code, failure.reason, attempts));
            this.count(topic, flow, 'dead_lettered');
          }
        }
      }
    }
    // Forwarded and dead-lettered copies must be acknowledged before the offsets move past them.
    await Promise.all([
      ...[...forwards.entries()].map(([tierTopic, records]) => this.producer.publishRaw(tierTopic, records)),
      this.producer.publishRaw(Topics.deadLetters.name, deadLetters),
    ]);
    return true;
  }

  private async runHandler(
    flow: Flow,
    topic: string,
    messages: readonly ConsumedMessage<V>[],
    payload: EachBatchPayload,
  ): Promise<{ error: unknown; reason: string } | 'stopping' | undefined> {
    for (let attempt = 1; ; attempt++) {
      const endTimer = this.metrics.handlerSeconds.startTimer({ topic, group: flow.groupId });
      try {
        await this.handler(messages);
        endTimer();
        for (let i = 0; i < messages.length; i++) this.count(topic, flow, 'ok');
        return undefined;
      } catch (error: unknown) {
        endTimer();
        const reason = `${errorCode(error)}: ${errorMessage(error)}`;
        this.logger.warn(
          {
            topic,
            groupId: flow.groupId,
            firstOffset: messages[0]?.offset,
            count: messages.length,
            attempt,
            err: error,
          },
          'Handler failed',
        );
        if (error instanceof NonRetryableError || attempt >= this.inPlaceAttempts) return { error, reason };
        await sleep(Math.min(5_000, 200 * 2 ** (attempt - 1)));
        if (!payload.isRunning() || payload.isStale()) return 'stopping';
      }
    }
  }

  private deadLetterRecord(
    flow: Flow,
    record: FailedRecord,
    code: string,
    reason: string,
    attempts: number,
  ): RawRecord {
    const letter = buildDeadLetter(record, flow.groupId, code, reason, attempts, new Date());
    return { key: Topics.deadLetters.keyOf(letter), value: JSON.stringify(letter) };
  }

  private count(topic: string, flow: Flow, outcome: ProcessOutcome): void {
    this.metrics.processed.inc({ topic, group: flow.groupId, outcome });
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
