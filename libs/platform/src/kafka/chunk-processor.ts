import {
  type DeadLetterCauseCode,
  decodeMessage,
  describeFailure,
  describeIssues,
  type ErrorCode,
  KafkaHeaders,
  MessageHandlingErrorCode,
  Topics,
  type TopicDefinition,
} from '@ums/contracts';
import type { KafkaMessage } from 'kafkajs';
import type { PinoLogger } from 'nestjs-pino';
import { errorCode, errorMessage } from '../errors/coded-error';
import { type InfrastructureFailure, infrastructureFailure } from '../errors/infrastructure-error';
import { bisectFailures, type ItemFailure, type TryOutcome } from './chunk-bisection';
import { type ConsumeTopicOptions } from './consume-topic.decorator';
import { type ConsumedMessage, type MessageHandler, NonRetryableError } from './consumed-message';
import {
  type BatchScope,
  type ChunkScope,
  type Flow,
  pauseUnlessLetGo,
  STOP,
  type Stop,
} from './consumer-flow';
import {
  buildDeadLetter,
  buildReducedDeadLetter,
  type DeadLetterCause,
  decodeHeaders,
  type FailedRecord,
} from './dead-letter.builder';
import { DEPENDENCY_BACKOFF_MAX_MS, dependencyBackoffMs, inPlaceBackoffMs } from './dependency-backoff';
import { nextHop } from './delay-tier-schedule';
import type { KafkaMetrics, ProcessOutcome } from './kafka.metrics';
import type { KafkaProducer, RawRecord } from './kafka-producer.service';
import { originTopicOf, retryForwardHeaders } from './retry-forward';

export interface ChunkProcessorOptions<V extends object> {
  readonly registration: ConsumeTopicOptions<V>;
  readonly handler: MessageHandler<V>;
  readonly producer: KafkaProducer;
  readonly metrics: KafkaMetrics;
  readonly logger: PinoLogger;
}

interface HandlerFailure {
  readonly error: unknown;
  /** The error's code (errorCode) and its message, apart. */
  readonly code: ErrorCode;
  readonly text: string;
}

/** A record to dead-letter, and why. */
interface LetterRequest {
  readonly record: FailedRecord;
  readonly cause: DeadLetterCause;
}

/** A publish the broker refused for the records themselves (too large, malformed): retrying cannot help. */
interface Refused {
  readonly refused: unknown;
}

/**
 * Takes one chunk of a partition's batch to a durable outcome. Valid messages go to the handler;
 * a dependency that is unavailable (MySQL, Redis, Kafka) never counts against a message: the chunk
 * waits with its partition held and is tried again until it answers. Any other failure splits the
 * chunk so that only the messages that fail on their own go to a retry tier or the dead-letter
 * topic, and a dead letter the broker refuses is stored reduced, so no record can stop the group.
 */
export class ChunkProcessor<V extends object> {
  private readonly registration: ConsumeTopicOptions<V>;
  private readonly handler: MessageHandler<V>;
  private readonly metrics: KafkaMetrics;
  private readonly logger: PinoLogger;
  private readonly producer: KafkaProducer;
  private readonly inPlaceAttempts: number;
  private readonly backoffMaxMs: number;
  private readonly tiers: readonly TopicDefinition<V>[];

  constructor(options: ChunkProcessorOptions<V>) {
    const registration = options.registration;
    this.registration = registration;
    this.handler = options.handler;
    this.metrics = options.metrics;
    this.logger = options.logger;
    this.producer = options.producer;
    this.tiers = registration.retryTiers ?? [];
    this.inPlaceAttempts = Math.max(1, registration.inPlaceAttempts ?? (this.tiers.length > 0 ? 1 : 3));
    this.backoffMaxMs = registration.dependencyBackoffMaxMs ?? DEPENDENCY_BACKOFF_MAX_MS;
  }

  /** Returns true once the chunk's outcome is durable (handled, forwarded or dead-lettered). */
  async process(batch: BatchScope, chunk: readonly KafkaMessage[]): Promise<boolean> {
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
      if (!(await pauseUnlessLetGo(scope, inPlaceBackoffMs(attempt)))) return { kind: 'stop' };
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
      return { error, code: errorCode(error), text: errorMessage(error) };
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
        if (!(await pauseUnlessLetGo(scope, dependencyBackoffMs(failures, this.backoffMaxMs)))) return STOP;
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
      const last = describeFailure(failure.code, failure.text);
      const hop = nonRetryable
        ? ({ kind: 'dead-letter', attempt: attempts } as const)
        : nextHop(this.tiers, attempts, Date.now(), this.registration.jitterRatio ?? 0.2);
      if (hop.kind === 'tier') {
        const list = forwards.get(hop.topic.name) ?? [];
        const headers = retryForwardHeaders(record.headers, {
          dueAt: hop.dueAt,
          attempt: hop.attempt,
          originTopic: originTopicOf(record.headers, {
            topic: this.registration.topic.name,
            isRetryTier: flow.delayed,
          }),
          lastError: last,
        });
        // The cause is used only if the tier refuses the record: it is then dead-lettered instead.
        const cause = this.cause(flow, MessageHandlingErrorCode.RetryForwardRefused, last, attempts);
        list.push({ record: { ...record, headers }, cause });
        forwards.set(hop.topic.name, list);
        this.count(topic, flow, 'retried');
      } else {
        // A refusal's own code is the letter's; after retries, the last error (code and text) is its reason.
        const cause = nonRetryable
          ? this.cause(flow, failure.code, failure.text, attempts)
          : this.cause(flow, MessageHandlingErrorCode.RetriesExhausted, last, attempts);
        letters.push({ record, cause });
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
    const full = letters.map(({ record, cause: c }) => this.letterRecord(buildDeadLetter(record, c, now)));
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

  private cause(flow: Flow, code: DeadLetterCauseCode, reason: string, attempts: number): DeadLetterCause {
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
