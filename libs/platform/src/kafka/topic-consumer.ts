import { KafkaHeaders, retryGroupOf, type TopicDefinition } from '@ums/contracts';
import type { EachBatchPayload, Kafka, KafkaMessage } from 'kafkajs';
import type { PinoLogger } from 'nestjs-pino';
import { ChunkProcessor } from './chunk-processor';
import { ChunkTracker, describeWait } from './chunk-tracker';
import { CommitSequencer } from './commit-sequencer';
import { type ConsumeTopicOptions } from './consume-topic.decorator';
import { type MessageHandler } from './consumed-message';
import { type BatchScope, type ConsumerLifecycle, type Flow, mustLetGo } from './consumer-flow';
import { headerValue } from './dead-letter.builder';
import { parseDueAt } from './delay-tier-schedule';
import type { KafkaMetrics } from './kafka.metrics';
import type { KafkaNames } from './kafka-names';
import type { KafkaProducer } from './kafka-producer.service';
import { runBounded } from './run-bounded';

const HEARTBEAT_EVERY_MS = 1_000;
const IDLE_STALL_MS = 60_000;
/** Heartbeat answers that mean the group is rebalancing: a waiting chunk lets its partition go. */
const REBALANCING = new Set(['REBALANCE_IN_PROGRESS', 'NOT_COORDINATOR_FOR_GROUP', 'ILLEGAL_GENERATION']);
/** A tier message due later than its tier's delay plus this (and jitter) has a forged due-at header. */
const DUE_AT_SLACK_MS = 60_000;

export interface ConsumerHealth {
  readonly ok: boolean;
  readonly detail?: string;
}

export interface TopicConsumerOptions<V extends object> {
  readonly registration: ConsumeTopicOptions<V>;
  readonly handler: MessageHandler<V>;
  readonly kafka: Kafka;
  readonly producer: KafkaProducer;
  readonly metrics: KafkaMetrics;
  readonly logger: PinoLogger;
  readonly names: KafkaNames;
  /** KafkaConfig's values, validated there: the one place their defaults live. */
  readonly sessionTimeoutMs: number;
  readonly fetchMaxBytes: number;
  /** Readiness's words for a crash (kafkaFailureText: names the setting when TLS or SASL failed). */
  readonly describeFailure?: (error: Error) => string;
}

/**
 * Runs one handler registration: a consumer group on the main topic and, when the handler has
 * retry tiers, a second group on the tier topics, so that waiting retries never hold back fresh
 * messages. This class is the flow control: groups, heartbeats, due times of tier messages,
 * bounded concurrency per partition and readiness. ChunkProcessor takes each chunk to a durable
 * outcome (handled, forwarded to a retry tier, or dead-lettered, each acknowledged by Kafka
 * first), and CommitSequencer commits the offsets in order once their chunks are finished.
 */
export class TopicConsumer<V extends object> {
  private readonly flows: Flow[] = [];
  private readonly resumeTimers = new Set<NodeJS.Timeout>();
  private readonly registration: ConsumeTopicOptions<V>;
  private readonly metrics: KafkaMetrics;
  private readonly logger: PinoLogger;
  private readonly chunks: ChunkProcessor<V>;
  private readonly chunkSize: number;
  private readonly concurrency: number;
  private readonly tiers: readonly TopicDefinition<V>[];
  private readonly lifecycle: ConsumerLifecycle = { stopping: false };

  constructor(private readonly options: TopicConsumerOptions<V>) {
    const registration = options.registration;
    this.registration = registration;
    this.metrics = options.metrics;
    this.logger = options.logger;
    this.chunks = new ChunkProcessor(options);
    this.tiers = registration.retryTiers ?? [];
    this.chunkSize = Math.max(1, registration.chunkSize ?? 1);
    this.concurrency = Math.max(1, registration.concurrency ?? 4);
  }

  /** Physical names (with the namespace). */
  get topicNames(): string[] {
    const tiers = this.registration.consumeRetryTiers === false ? [] : this.tiers;
    return [this.registration.topic.name, ...tiers.map((t) => t.name)].map((name) =>
      this.options.names.topic(name),
    );
  }

  async start(): Promise<void> {
    const { names } = this.options;
    const flows = [
      this.startFlow(
        names.group(this.registration.groupId),
        [names.topic(this.registration.topic.name)],
        false,
      ),
    ];
    if (this.tiers.length > 0 && this.registration.consumeRetryTiers !== false) {
      flows.push(
        this.startFlow(
          names.group(retryGroupOf(this.registration.groupId)),
          this.tiers.map((t) => names.topic(t.name)),
          true,
        ),
      );
    }
    // Both groups join at once (each may wait out a killed predecessor's session).
    await Promise.all(flows);
  }

  /** Stops taking new chunks, lets in-flight ones finish and commit, then leaves the group. */
  async stop(): Promise<void> {
    this.lifecycle.stopping = true;
    for (const timer of this.resumeTimers) clearTimeout(timer);
    this.resumeTimers.clear();
    await Promise.all(this.flows.map((flow) => flow.consumer.disconnect()));
  }

  /**
   * Not ok when a flow crashed, a chunk stalled, a chunk waits for a dependency, or a flow went
   * silent; the worst of those is reported, whichever flow it is in.
   */
  health(now = Date.now()): ConsumerHealth {
    const stallMs = this.registration.stallTimeoutMs ?? 300_000;
    const checks: ((flow: Flow) => string | undefined)[] = [
      (flow) => (flow.crashed === undefined ? undefined : `crashed: ${flow.crashed}`),
      (flow) => {
        const stalled = flow.chunks.stalled(now, stallMs);
        return stalled === undefined ? undefined : `stalled on ${stalled.label}`;
      },
      (flow) => {
        const wait = flow.chunks.longestWait();
        return wait === undefined ? undefined : describeWait(wait, now);
      },
      (flow) => {
        const silentMs = now - flow.lastActivity;
        return silentMs > IDLE_STALL_MS ? `silent for ${Math.round(silentMs / 1000)} s` : undefined;
      },
    ];
    for (const check of checks) {
      for (const flow of this.flows) {
        const problem = check(flow);
        if (problem !== undefined) return { ok: false, detail: `${flow.groupId} ${problem}` };
      }
    }
    return { ok: this.flows.length > 0, detail: this.flows.length > 0 ? undefined : 'not started' };
  }

  private async startFlow(groupId: string, topics: string[], delayed: boolean): Promise<void> {
    const { sessionTimeoutMs, fetchMaxBytes } = this.options;
    const consumer = this.options.kafka.consumer({
      groupId,
      sessionTimeout: sessionTimeoutMs,
      // A rebalance waits this long for members that have not rejoined (a frozen one holds everybody up).
      rebalanceTimeout: 2 * sessionTimeoutMs,
      heartbeatInterval: Math.min(3_000, Math.floor(sessionTimeoutMs / 5)),
      allowAutoTopicCreation: false,
      maxBytesPerPartition: 1_048_576,
      maxBytes: fetchMaxBytes,
      maxWaitTimeInMs: 500,
    });
    const flow: Flow = {
      consumer,
      groupId,
      delayed,
      lastActivity: Date.now(),
      chunks: new ChunkTracker(),
      lifecycle: this.lifecycle,
    };
    this.instrument(flow);
    this.flows.push(flow);
    await consumer.connect();
    // A new group reads everything retained: starting at "latest" would skip messages.
    await consumer.subscribe({ topics, fromBeginning: true });
    await consumer.run({
      autoCommit: false,
      eachBatchAutoResolve: false,
      partitionsConsumedConcurrently: this.registration.partitionsConsumedConcurrently ?? 4,
      eachBatch: (payload) => this.onBatch(flow, payload),
    });
  }

  /** Liveness, lag and crash reporting from the consumer's events. */
  private instrument(flow: Flow): void {
    const { consumer, groupId } = flow;
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
      if (!payload.restart)
        flow.crashed = this.options.describeFailure?.(payload.error) ?? payload.error.message;
    });
    consumer.on(events.STOP, () => {
      if (!this.lifecycle.stopping) flow.crashed = 'stopped';
    });
  }

  private async onBatch(flow: Flow, payload: EachBatchPayload): Promise<void> {
    const { batch } = payload;
    if (batch.messages.length === 0) return;
    const scope: BatchScope = {
      flow,
      payload,
      topic: batch.topic,
      partition: batch.partition,
      group: { rebalancing: false },
    };
    // Long batches (and chunks waiting for a dependency) keep the group membership alive; kafkajs
    // throttles to heartbeatInterval. A rebalance makes waiting chunks let the partition go.
    const heartbeat = setInterval(() => {
      payload.heartbeat().catch((error: unknown) => {
        if (REBALANCING.has(String((error as { type?: unknown }).type))) scope.group.rebalancing = true;
        this.logger.warn({ groupId: flow.groupId, err: error }, 'Heartbeat failed during a batch');
      });
    }, HEARTBEAT_EVERY_MS);
    try {
      const { messages, holdUntil } = flow.delayed
        ? this.dueMessages(batch.topic, batch.messages)
        : { messages: batch.messages, holdUntil: undefined };
      if (messages.length > 0) await this.processMessages(scope, messages);
      if (holdUntil !== undefined && !mustLetGo(scope)) this.holdPartition(payload, holdUntil);
    } finally {
      clearInterval(heartbeat);
    }
  }

  /**
   * The leading messages of a tier batch that are due, and when the first one that is not will be.
   * A due time beyond anything its tier can set (a forged header) counts as due now, so that no
   * record can hold a tier partition for good.
   */
  private dueMessages(
    physicalTopic: string,
    messages: KafkaMessage[],
  ): { messages: KafkaMessage[]; holdUntil?: number } {
    const tier = this.tiers.find((t) => this.options.names.topic(t.name) === physicalTopic);
    const jitter = this.registration.jitterRatio ?? 0.2;
    const latest = (tier?.delayMs ?? 0) * (1 + jitter) + DUE_AT_SLACK_MS;
    const now = Date.now();
    for (let i = 0; i < messages.length; i++) {
      const dueAt = parseDueAt(headerValue(messages[i]?.headers, KafkaHeaders.dueAt));
      if (dueAt > now && dueAt <= now + latest) return { messages: messages.slice(0, i), holdUntil: dueAt };
    }
    return { messages };
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
        if (!this.lifecycle.stopping) resume();
      },
      Math.max(0, until - Date.now()),
    );
    this.resumeTimers.add(timer);
  }

  private async processMessages(scope: BatchScope, messages: readonly KafkaMessage[]): Promise<void> {
    const { payload, topic, partition } = scope;
    const commits = new CommitSequencer({
      payload,
      topic,
      partition,
      offsets: messages.map((m) => m.offset),
    });
    const chunks: KafkaMessage[][] = [];
    for (let i = 0; i < messages.length; i += this.chunkSize)
      chunks.push(messages.slice(i, i + this.chunkSize));
    await runBounded(chunks, this.concurrency, async (chunk) => {
      if (mustLetGo(scope)) return; // left unresolved: fetched again by the owner
      const finished = await this.chunks.process(scope, chunk);
      if (finished) await commits.finished(chunk.map((m) => m.offset));
    });
    await commits.settled();
  }
}
