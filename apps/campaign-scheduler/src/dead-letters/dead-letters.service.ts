import { Injectable } from '@nestjs/common';
import { DeadLetterErrorCode, type DeadLetterV1 } from '@ums/contracts';
import {
  InvalidInputError,
  KafkaNames,
  KafkaProducer,
  NotFoundError,
  type RawRecord,
  type TenantFilter,
} from '@ums/platform';
import { PinoLogger } from 'nestjs-pino';
import type { DeadLetterPage, DeadLetterView, ReplayResult } from './dead-letter.view';
import { replayHeaders, replayTarget, replayValue } from './dead-letter-replay';
import { deadLetterTenant } from './dead-letter-tenant';
import { DeadLettersMetrics } from './dead-letters.metrics';
import { type DeadLetterRecord, DeadLettersRepository } from './dead-letters.repository';
import type { ListDeadLettersDto, ReplayDeadLettersDto } from './dead-letters.dto';

/** A replay by filter without a limit takes at most this many entries. */
const DEFAULT_REPLAY_LIMIT = 1_000;
/** Entries read and published per round of a replay. */
const REPLAY_PAGE = 200;

/**
 * Dead letters: every entry of `ums.dead-letters.v1` is stored (DeadLettersConsumer) with the tenant of
 * its original message, listed and shown here, and replayed on request to the topic its message was
 * first consumed from, with its original key, bytes and headers. Every read and replay takes a tenant
 * filter: a tenant reaches only its own entries (another tenant's id is not found), operators (null)
 * every entry, those of no known tenant included. A replay is published (acknowledged by Kafka) before it
 * is recorded, so a crash in between may publish an entry twice: consumers dedupe by message and
 * event ids, as for any redelivery.
 */
@Injectable()
export class DeadLettersService {
  constructor(
    private readonly repository: DeadLettersRepository,
    private readonly producer: KafkaProducer,
    private readonly names: KafkaNames,
    private readonly metrics: DeadLettersMetrics,
    private readonly logger: PinoLogger,
  ) {
    this.logger.setContext(DeadLettersService.name);
  }

  async store(letters: readonly DeadLetterV1[]): Promise<void> {
    await this.repository.insertMany(
      letters.map((letter) => ({
        ...letter,
        tenantId: deadLetterTenant(letter, this.names.logicalTopic(letter.sourceTopic)),
      })),
    );
    for (const letter of letters) {
      this.metrics.consumed.inc({ source_topic: letter.sourceTopic, error_code: letter.errorCode });
    }
  }

  async list(tenantId: TenantFilter, query: ListDeadLettersDto): Promise<DeadLetterPage> {
    const records = await this.repository.list(
      {
        tenantId,
        sourceTopic: query.sourceTopic,
        errorCode: query.errorCode,
        consumerGroup: query.consumerGroup,
        replayed: query.replayed,
      },
      query.before,
      query.limit + 1,
    );
    const items = records.slice(0, query.limit).map((r) => this.view(r));
    return { items, nextBefore: records.length > query.limit ? (items.at(-1)?.id ?? null) : null };
  }

  async get(tenantId: TenantFilter, id: string): Promise<DeadLetterView> {
    const record = await this.repository.findById(tenantId, id);
    if (record === undefined) {
      throw new NotFoundError(DeadLetterErrorCode.NotFound, `No dead letter ${id}`, { deadLetterId: id });
    }
    return this.view(record);
  }

  /** Replays the tenant's entries (every entry for null); another tenant's id is missing. */
  async replay(tenantId: TenantFilter, request: ReplayDeadLettersDto): Promise<ReplayResult> {
    const byFilter =
      request.sourceTopic !== undefined ||
      request.errorCode !== undefined ||
      request.consumerGroup !== undefined;
    if (request.ids !== undefined && byFilter) {
      throw InvalidInputError.field(
        DeadLetterErrorCode.ReplaySelectionInvalid,
        'ids',
        'give ids or filters, not both',
      );
    }
    if (request.ids !== undefined) {
      const ids = [...new Set(request.ids)];
      const records = await this.repository.findByIds(tenantId, ids);
      const found = new Set(records.map((r) => r.id));
      const missing = ids.filter((id) => !found.has(id));
      if (missing.length > 0) {
        throw new NotFoundError(DeadLetterErrorCode.NotFound, `No dead letter ${missing.join(', ')}`, {
          deadLetterIds: missing,
        });
      }
      return this.publish(tenantId, records);
    }
    if (!byFilter) {
      throw InvalidInputError.field(
        DeadLetterErrorCode.ReplaySelectionInvalid,
        'ids',
        'give ids, or at least one of sourceTopic, errorCode, consumerGroup',
      );
    }
    const filter = {
      tenantId,
      sourceTopic: request.sourceTopic,
      errorCode: request.errorCode,
      consumerGroup: request.consumerGroup,
      replayed: request.includeReplayed === true ? undefined : false,
    };
    const limit = request.limit ?? DEFAULT_REPLAY_LIMIT;
    // Entries stored from now on (one replayed here that fails again) are not this replay's.
    const upTo = await this.repository.newestId();
    const replayed: string[] = [];
    const refused: { id: string; reason: string }[] = [];
    let after = '0';
    while (replayed.length + refused.length < limit) {
      const page = await this.repository.listForReplay(
        filter,
        after,
        upTo,
        Math.min(REPLAY_PAGE, limit - replayed.length - refused.length),
      );
      if (page.length === 0) break;
      const result = await this.publish(tenantId, page);
      replayed.push(...result.replayed);
      refused.push(...result.refused);
      after = page.at(-1)?.id ?? after;
    }
    return { replayed, refused };
  }

  /** Publishes the replayable ones (per topic, in id order), then records their replay. */
  private async publish(tenantId: TenantFilter, records: readonly DeadLetterRecord[]): Promise<ReplayResult> {
    const perTopic = new Map<string, RawRecord[]>();
    const replayed: string[] = [];
    const refused: { id: string; reason: string }[] = [];
    for (const record of records) {
      const target = replayTarget(record.headers, this.names.logicalTopic(record.sourceTopic));
      if (!target.ok) {
        refused.push({ id: record.id, reason: target.reason });
        continue;
      }
      const list = perTopic.get(target.topic) ?? [];
      list.push({
        key: record.key,
        value: replayValue(record.value, record.valueEncoding),
        headers: replayHeaders(record.headers, record.id),
      });
      perTopic.set(target.topic, list);
      replayed.push(record.id);
    }
    await Promise.all([...perTopic].map(([topic, list]) => this.producer.publishRaw(topic, list)));
    await this.repository.markReplayed(tenantId, replayed);
    if (replayed.length > 0) {
      this.logger.info(
        { replayed: replayed.length, topics: [...perTopic.keys()], refused: refused.length },
        'Dead letters replayed',
      );
    }
    return { replayed, refused };
  }

  private view(record: DeadLetterRecord): DeadLetterView {
    const target = replayTarget(record.headers, this.names.logicalTopic(record.sourceTopic));
    return {
      id: record.id,
      tenantId: record.tenantId,
      consumerGroup: record.consumerGroup,
      sourceTopic: record.sourceTopic,
      sourcePartition: record.sourcePartition,
      sourceOffset: record.sourceOffset,
      replayTo: target.ok ? target.topic : null,
      key: record.key,
      value: record.value,
      valueEncoding: record.valueEncoding,
      headers: record.headers,
      errorCode: record.errorCode,
      reason: record.reason,
      attempts: record.attempts,
      failedAt: record.failedAt?.toISOString() ?? null,
      replays: record.replays,
      replayedAt: record.replayedAt?.toISOString() ?? null,
      createdAt: record.createdAt.toISOString(),
    };
  }
}
