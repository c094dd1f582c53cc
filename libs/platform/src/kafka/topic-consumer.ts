import {
  decodeMessage,
  describeIssues,
  KafkaHeaders,
  retryGroupOf,
  Topics,
  type TopicDefinition,
} from '@ums/contracts';
import type { Consumer, EachBatchPayload, Kafka, KafkaMessage } from 'kafkajs';
import type { PinoLogger } from 'nestjs-pino';
import { errorCode, errorMessage } from '../errors/coded-error';
import { type InfrastructureFailure, infrastructureFailure } from '../errors/infrastructure-error';
import { bisectFailures, type ItemFailure, type TryOutcome } from './chunk-bisection';
import { ChunkTracker, describeWait, type TrackedChunk } from './chunk-tracker';
import { type ConsumeTopicOptions } from './consume-topic.decorator';
import { type ConsumedMessage, type MessageHandler, NonRetryableError } from './consumed-message';
import {
  buildDeadLetter,
  buildReducedDeadLetter,
  type DeadLetterCause,
  decodeHeaders,
  type FailedRecord,
  headerValue,
} from './dead-letter.builder';
import { DEPENDENCY_BACKOFF_MAX_MS, dependencyBackoffMs, inPlaceBackoffMs } from './dependency-backoff';
import { nextHop, parseDueAt } from './delay-tier-schedule';
import type { KafkaMetrics, ProcessOutcome } from './kafka.metrics';
import type { KafkaNames } from './kafka-names';
import type { KafkaProducer, RawRecord } from './kafka-producer.service';
import { OffsetWatermark } from './offset-watermark';
import { runBounded } from './run-bounded';

const HEARTBEAT_EVERY_MS = 1_000;
const IDLE_STALL_MS = 60_000;
/** Longest sleep between two looks at whether the partition must be let go. */
const STOP_CHECK_MS = 200;
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

interface Flow {
  readonly consumer: Consumer;
  readonly groupId: string;
  /** Delay-tier flow: holds each message until its due time. */
  readonly delayed: boolean;
  lastActivity: number;
  crashed?: string;
  readonly chunks: ChunkTracker;
}

/** One eachBatch call: the partition it holds, and whether the group asked for it back. */
interface BatchScope {
  readonly flow: Flow;
  readonly payload: EachBatchPayload;
  readonly topic: string;
  readonly partition: number;
  /** Set when a heartbeat learns that the group rebalances; shared by the batch's chunks. */
  readonly group: { rebalancing: boolean };
}

/** A chunk in progress within its batch. */
interface ChunkScope extends BatchScope {
  readonly tracked: TrackedChunk;
}

interface HandlerFailure {
  readonly error: unknown;
  readonly reason: string;
}

/** A record to dead-letter, and why. */
interface LetterRequest {
  readonly record: FailedRecord;
  readonly cause: DeadLetterCause;
}

/** The partition must be let go (shutdown, revoked, rebalancing): work stays unresolved. */
const STOP = 'stop';
type Stop = typeof STOP;

/** A publish the broker refused for the records themselves (too large, malformed): retrying cannot help. */
interface Refused {
  readonly refused: unknown;
}

/**
 * Runs one handler registration: a consumer group on the main topic and, when the handler has
 * retry tiers, a second group on the tier topics, so that waiting retries never hold back fresh
 * messages. Offsets are committed in order and only for messages whose work is finished: handled,
 * forwarded to a retry tier, or dead-lettered (each of those acknowledged by Kafka first).
 *
 * Failures are told apart: a dependency that is unavailable (MySQL, Redis, Kafka) never counts
 * against a message; the chunk waits with its partition held and is tried again until it answers.
 * Any other failure splits the chunk so that only the messages that fail on their own go to a
 * retry tier or the dead-letter topic. A dead letter the broker refuses is stored reduced, so no
 * record can stop the group.
 */
export class TopicConsumer<V extends object> {
  private readonly flows: Flow[] = [];
  private readonly resumeTimers = new Set<NodeJS.Timeout>();
  private readonly registration: ConsumeTopicOptions<V>;
  private readonly handler: MessageHandler<V>;
  private readonly metrics: KafkaMetrics;
  private readonly logger: PinoLogger;
  private readonly producer: KafkaProducer;
  private readonly chunkSize: number;
  private readonly concurrency: number;
  private readonly inPlaceAttempts: number;
  private readonly backoffMaxMs: number;
  private readonly tiers: readonly TopicDefinition<V>[];
  private stopping = false;

  constructor(private readonly options: TopicConsumerOptions<V>) {
    const registration = options.registration;
    this.registration = registration;
    this.handler = options.handler;
    this.metrics = options.metrics;
    this.logger = options.logger;
    this.producer = options.producer;
    this.tiers = registration.retryTiers ?? [];
    this.chunkSize = Math.max(1, registration.chunkSize ?? 1);
    this.concurrency = Math.max(1, registration.concurrency ?? 4);
    this.inPlaceAttempts = Math.max(1, registration.inPlaceAttempts ?? (this.tiers.length > 0 ? 1 : 3));
    this.backoffMaxMs = registration.dependencyBackoffMaxMs ?? DEPENDENCY_BACKOFF_MAX_MS;
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
    this.stopping = true;
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
    const flow: Flow = { consumer, groupId, delayed, lastActivity: Date.now(), chunks: new ChunkTracker() };
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
      if (!this.stopping) flow.crashed = 'stopped';
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
      if (holdUntil !== undefined && !this.mustLetGo(scope)) this.holdPartition(payload, holdUntil);
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
        if (!this.stopping) resume();
      },
      Math.max(0, until - Date.now()),
    );
    this.resumeTimers.add(timer);
  }

  private async processMessages(scope: BatchScope, messages: readonly KafkaMessage[]): Promise<void> {
    const { payload, topic, partition } = scope;
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
        await payload.commitOffsetsIfNecessary({ topics: [{ topic, partitions: [{ partition, offset }] }] });
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
      if (this.mustLetGo(scope)) return; // left unresolved: fetched again by the owner
      const finished = await this.processChunk(scope, chunk);
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
  private async processChunk(batch: BatchScope, chunk: readonly KafkaMessage[]): Promise<boolean> {
    const { flow, topic, partition } = batch;
    const tracked = flow.chunks.begin(`${topic}[${partition}]@${chunk[0]?.offset ?? '?'}`);
    const scope: ChunkScope = { ...batch, tracked };
    try {
      const { valid, records, letters } = this.decodeChunk(scope, chunk);
      const failures = await bisectFailures(valid, (part) => this.tryHandler(scope, part));
      if (failures === STOP) return false;
      const routed = this.route(scope, failures, records);
      return await this.publishOutcomes(scope, routed.forwards, [...letters, ...routed.letters]);
    } finally {
      this.endWait(scope);
      flow.chunks.end(tracked);
    }
  }

  /** Valid messages for the handler; the others become dead letters at once. */
  private decodeChunk(
    scope: ChunkScope,
    chunk: readonly KafkaMessage[],
  ): { valid: ConsumedMessage<V>[]; records: Map<string, FailedRecord>; letters: LetterRequest[] } {
    const { topic, partition, flow } = scope;
    const valid: ConsumedMessage<V>[] = [];
    const records = new Map<string, FailedRecord>();
    const letters: LetterRequest[] = [];
    for (const message of chunk) {
      const headers = decodeHeaders(message.headers);
      const { offset, key, value } = message;
      const record: FailedRecord = { topic, partition, offset, key, value, headers };
      records.set(offset, record);
      const decoded = decodeMessage(this.registration.topic.value, value);
      if (!decoded.ok) {
        this.logger.warn(
          { topic, partition, offset, code: decoded.code, issues: decoded.issues },
          'Invalid message dead-lettered',
        );
        const reason = describeIssues(decoded.issues);
        letters.push({ record, cause: this.cause(flow, decoded.code, reason, 0) });
        this.count(topic, flow, 'invalid');
        continue;
      }
      const attempt = Number(headers[KafkaHeaders.attempt] ?? '0');
      valid.push({
        value: decoded.value,
        key: key === null ? null : key.toString('utf8'),
        topic,
        partition,
        offset,
        headers,
        attempt: Number.isInteger(attempt) && attempt >= 0 ? attempt : 0,
      });
    }
    return { valid, records, letters };
  }

  /**
   * One try of part of a chunk. A failure of several messages is reported at once (the caller
   * splits them); a single message gets its in-place attempts first, unless it is non-retryable.
   */
  private async tryHandler(
    scope: ChunkScope,
    messages: readonly ConsumedMessage<V>[],
  ): Promise<TryOutcome<HandlerFailure>> {
    for (let attempt = 1; ; attempt++) {
      const outcome = await this.callHandler(scope, messages, attempt);
      if (outcome === STOP) return { kind: 'stop' };
      if (outcome === undefined) {
        scope.flow.chunks.progressed(scope.tracked);
        return { kind: 'ok' };
      }
      const final =
        messages.length > 1 || outcome.error instanceof NonRetryableError || attempt >= this.inPlaceAttempts;
      if (final) return { kind: 'failed', failure: outcome };
      if (!(await this.pause(scope, inPlaceBackoffMs(attempt)))) return { kind: 'stop' };
    }
  }

  /** Runs the handler until it succeeds or fails for a reason other than an unavailable dependency. */
  private async callHandler(
    scope: ChunkScope,
    messages: readonly ConsumedMessage<V>[],
    attempt: number,
  ): Promise<HandlerFailure | Stop | undefined> {
    const { topic, flow } = scope;
    try {
      const done = await this.whileUnavailable(scope, async () => {
        const endTimer = this.metrics.handlerSeconds.startTimer({ topic, group: flow.groupId });
        try {
          await this.handler(messages);
        } finally {
          endTimer();
        }
      });
      if (done === STOP) return STOP;
      for (let i = 0; i < messages.length; i++) this.count(topic, flow, 'ok');
      return undefined;
    } catch (error: unknown) {
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
      return { error, reason };
    }
  }

  /**
   * Runs `work` until it does not fail with an infrastructure error: such a failure marks the chunk
   * waiting (readiness, metrics) and is tried again after a bounded, jittered backoff, without end,
   * while the partition is held. Other errors are thrown to the caller.
   */
  private async whileUnavailable<T>(scope: ChunkScope, work: () => Promise<T>): Promise<T | Stop> {
    for (let failures = 1; ; failures++) {
      try {
        const result = await work();
        this.endWait(scope);
        return result;
      } catch (error: unknown) {
        const failure = infrastructureFailure(error);
        if (failure === undefined) {
          this.endWait(scope);
          throw error;
        }
        this.startWait(scope, failure, error);
        if (!(await this.pause(scope, dependencyBackoffMs(failures, this.backoffMaxMs)))) return STOP;
      }
    }
  }

  private startWait(scope: ChunkScope, failure: InfrastructureFailure, error: unknown): void {
    const group = scope.flow.groupId;
    const previous = scope.flow.chunks.waiting(scope.tracked, failure);
    if (previous?.dependency === failure.dependency) return;
    if (previous !== undefined) {
      this.metrics.chunksWaiting.dec({ group, dependency: previous.dependency });
    } else {
      this.metrics.dependencyWaits.inc({ group, dependency: failure.dependency });
      this.logger.warn(
        { groupId: group, chunk: scope.tracked.label, ...failure, err: error },
        'Dependency unavailable: chunk waits and is tried again',
      );
    }
    this.metrics.chunksWaiting.inc({ group, dependency: failure.dependency });
  }

  private endWait(scope: ChunkScope): void {
    const wait = scope.flow.chunks.resumed(scope.tracked);
    if (wait === undefined) return;
    this.metrics.chunksWaiting.dec({ group: scope.flow.groupId, dependency: wait.dependency });
    this.logger.info(
      { groupId: scope.flow.groupId, chunk: scope.tracked.label, ...wait, waitedMs: Date.now() - wait.since },
      'Dependency answered again: chunk resumed',
    );
  }

  /** Where each failed message goes: its next retry tier, or the dead-letter topic. */
  private route(
    scope: ChunkScope,
    failures: readonly ItemFailure<ConsumedMessage<V>, HandlerFailure>[],
    records: ReadonlyMap<string, FailedRecord>,
  ): { forwards: Map<string, LetterRequest[]>; letters: LetterRequest[] } {
    const { topic, flow } = scope;
    const forwards = new Map<string, LetterRequest[]>();
    const letters: LetterRequest[] = [];
    for (const { item: message, failure } of failures) {
      const record = records.get(message.offset) as FailedRecord;
      const attempts = message.attempt + 1;
      const nonRetryable = failure.error instanceof NonRetryableError;
      const hop = nonRetryable
        ? ({ kind: 'dead-letter', attempt: attempts } as const)
        : nextHop(this.tiers, attempts, Date.now(), this.registration.jitterRatio ?? 0.2);
      if (hop.kind === 'tier') {
        const list = forwards.get(hop.topic.name) ?? [];
        const headers = {
          ...record.headers,
          [KafkaHeaders.dueAt]: String(hop.dueAt),
          [KafkaHeaders.attempt]: String(hop.attempt),
          // Only a tier's copies carry our origin; on the main topic the header is whatever a producer wrote.
          [KafkaHeaders.originTopic]:
            (flow.delayed ? record.headers[KafkaHeaders.originTopic] : undefined) ??
            this.registration.topic.name,
          [KafkaHeaders.lastError]: failure.reason.slice(0, 1024),
        };
        // The cause is used only if the tier refuses the record: it is then dead-lettered instead.
        const cause = this.cause(flow, 'RETRY_FORWARD_REFUSED', failure.reason, attempts);
        list.push({ record: { ...record, headers }, cause });
        forwards.set(hop.topic.name, list);
        this.count(topic, flow, 'retried');
      } else {
        const code = nonRetryable ? (failure.error as NonRetryableError).code : 'RETRIES_EXHAUSTED';
        letters.push({ record, cause: this.cause(flow, code, failure.reason, attempts) });
        this.count(topic, flow, 'dead_lettered');
      }
    }
    return { forwards, letters };
  }

  /** Forwarded and dead-lettered copies must be acknowledged before the offsets move past them. */
  private async publishOutcomes(
    scope: ChunkScope,
    forwards: ReadonlyMap<string, readonly LetterRequest[]>,
    letters: readonly LetterRequest[],
  ): Promise<boolean> {
    const forwarded = await Promise.all(
      [...forwards.entries()].map(([tierTopic, requests]) => this.forward(scope, tierTopic, requests)),
    );
    if (forwarded.includes(STOP)) return false;
    const refusedForwards = forwarded.flatMap((r) => (r === STOP ? [] : r));
    return this.publishLetters(scope, [...letters, ...refusedForwards]);
  }

  /** Forwards records to a tier; returns those the broker refused (to be dead-lettered instead). */
  private async forward(
    scope: ChunkScope,
    tierTopic: string,
    requests: readonly LetterRequest[],
  ): Promise<LetterRequest[] | Stop> {
    const toRaw = ({ record }: LetterRequest): RawRecord => ({
      key: record.key,
      value: record.value,
      headers: record.headers,
    });
    const all = await this.publish(scope, tierTopic, requests.map(toRaw));
    if (all === STOP) return STOP;
    if (all === undefined) return [];
    const refused: LetterRequest[] = [];
    for (const request of requests) {
      const one = await this.publish(scope, tierTopic, [toRaw(request)]);
      if (one === STOP) return STOP;
      if (one !== undefined) {
        this.logger.error(
          { ...coordinatesOf(request.record), tierTopic, err: one.refused },
          'Retry tier refused the record: dead-lettered instead',
        );
        const reason = `${request.cause.reason} (retry tier refused it: ${refusalOf(one.refused)})`;
        refused.push({ ...request, cause: { ...request.cause, reason } });
      }
    }
    return refused;
  }

  /**
   * Publishes dead letters. When the broker refuses them, each goes alone; one it refuses on its own
   * goes reduced (coordinates, a shortened value, the reason); one refused even so is logged with its
   * coordinates (never its bytes) and counted, and the consumer moves past it.
   */
  private async publishLetters(scope: ChunkScope, letters: readonly LetterRequest[]): Promise<boolean> {
    if (letters.length === 0) return true;
    const now = new Date();
    const full = letters.map(({ record, cause: c }) =>
      this.letterRecord(buildDeadLetter(record, c.consumerGroup, c.errorCode, c.reason, c.attempts, now)),
    );
    const all = await this.publish(scope, Topics.deadLetters.name, full);
    if (all === STOP) return false;
    if (all === undefined) return true;
    for (const [i, letter] of letters.entries()) {
      const one = await this.publish(scope, Topics.deadLetters.name, [full[i] as RawRecord]);
      if (one === STOP) return false;
      if (one === undefined) continue;
      const refusal = refusalOf(one.refused);
      const reduced = buildReducedDeadLetter(letter.record, letter.cause, refusal, now);
      const last = await this.publish(scope, Topics.deadLetters.name, [this.letterRecord(reduced)]);
      if (last === STOP) return false;
      const outcome = last === undefined ? 'reduced' : 'dropped';
      this.metrics.deadLetterFallbacks.inc({ group: scope.flow.groupId, outcome });
      const context = { ...coordinatesOf(letter.record), groupId: scope.flow.groupId, refusal };
      if (last === undefined) this.logger.warn(context, 'Dead letter refused by the broker: stored reduced');
      else this.logger.error({ ...context, err: last.refused }, 'Dead letter refused even reduced: skipped');
    }
    return true;
  }

  /** Publishes, waiting out an unavailable broker; a refusal of the records themselves is returned. */
  private async publish(
    scope: ChunkScope,
    topicName: string,
    records: readonly RawRecord[],
  ): Promise<Refused | Stop | undefined> {
    try {
      const done = await this.whileUnavailable(scope, () => this.producer.publishRaw(topicName, records));
      return done === STOP ? STOP : undefined;
    } catch (error: unknown) {
      return { refused: error };
    }
  }

  /** Sleeps for `ms`, looking often whether the partition must be let go; false if it must. */
  private async pause(scope: BatchScope, ms: number): Promise<boolean> {
    const until = Date.now() + ms;
    for (;;) {
      if (this.mustLetGo(scope)) return false;
      const left = until - Date.now();
      if (left <= 0) return true;
      await sleep(Math.min(left, STOP_CHECK_MS));
    }
  }

  private mustLetGo(scope: BatchScope): boolean {
    const { payload } = scope;
    return this.stopping || scope.group.rebalancing || !payload.isRunning() || payload.isStale();
  }

  private cause(flow: Flow, code: string, reason: string, attempts: number): DeadLetterCause {
    return { consumerGroup: flow.groupId, errorCode: code, reason, attempts };
  }

  private letterRecord(letter: ReturnType<typeof buildDeadLetter>): RawRecord {
    return { key: Topics.deadLetters.keyOf(letter), value: JSON.stringify(letter) };
  }

  private count(topic: string, flow: Flow, outcome: ProcessOutcome): void {
    this.metrics.processed.inc({ topic, group: flow.groupId, outcome });
  }
}

function coordinatesOf(record: FailedRecord): { topic: string; partition: number; offset: string } {
  return { topic: record.topic, partition: record.partition, offset: record.offset };
}

/** The broker's reason (kafkajs' error type, e.g. MESSAGE_TOO_LARGE) and message, short. */
function refusalOf(error: unknown): string {
  const type = (error as { type?: unknown } | null)?.type;
  const message = errorMessage(error).slice(0, 256);
  return typeof type === 'string' ? `${type}: ${message}` : message;
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
