import { Injectable } from '@nestjs/common';
import {
  ConsumerGroups,
  type DeadLetterV1,
  type InboundMessageV1,
  ProviderEventKind,
  type ProviderEventV1,
  type ProviderInboundV1,
  Topics,
  MessageHandlingErrorCode,
} from '@ums/contracts';
import { isOptInText, latestOptChanges, type OptChange, optOutAddress } from '@ums/domain';
import { type ConsumedMessage, KafkaProducer } from '@ums/platform';
import { StatusEventsPublisher } from '../sending/status-events.publisher';
import { ArchivedMessagesRepository } from './archived-messages.repository';
import { type CredentialOwner, InboundMessagesRepository, type OptOut } from './inbound-messages.repository';
import { StatusMetrics } from './status.metrics';
import { type ReportedStatus, StatusUpdatesRepository } from './status-updates.repository';

export const STATUS_GROUP = ConsumerGroups.senderStatus;

/**
 * Applies a consumed chunk of provider events: statuses to message rows (forward only, counters in
 * the same transaction) and then on the status topic; inbound messages to the inbound topic, with
 * STOP-like replies recorded as opt-outs and START-like ones lifting them first (isOptInText says
 * which keywords, per provider). Events naming a message or credential we do not know are counted
 * and dead-lettered, never dropped silently; a status of an archived message (past its retention, in
 * `messages_archive`) is counted as `archived` and dropped, as it can change nothing. Every step is idempotent, so a redelivered chunk
 * changes nothing twice.
 */
@Injectable()
export class StatusApplicationService {
  constructor(
    private readonly statuses: StatusUpdatesRepository,
    private readonly inbound: InboundMessagesRepository,
    private readonly publisher: StatusEventsPublisher,
    private readonly producer: KafkaProducer,
    private readonly metrics: StatusMetrics,
    private readonly archived: ArchivedMessagesRepository,
  ) {}

  async apply(messages: readonly ConsumedMessage<ProviderEventV1>[]): Promise<void> {
    const reports: ReportedStatus[] = [];
    const inbound: number[] = [];
    messages.forEach((message, index) => {
      const event = message.value;
      if (event.kind === ProviderEventKind.Status && event.status !== undefined) {
        reports.push({
          index,
          messageId: event.status.messageId,
          providerMessageId: event.status.providerMessageId,
          credentialId: event.credentialId,
          status: event.status.status,
          reason: event.status.reason,
          errorCode: event.status.errorCode,
          errorText: event.status.errorText,
          occurredAt: event.status.occurredAt,
        });
      } else if (event.kind === ProviderEventKind.Inbound && event.inbound !== undefined) {
        inbound.push(index);
      }
    });
    const unknown: { index: number; code: MessageHandlingErrorCode; reason: string }[] = [];
    if (reports.length > 0) {
      const result = await this.statuses.apply(reports, (applied) => this.publisher.publish(applied));
      this.metrics.statuses.inc({ outcome: 'applied' }, result.applied.length);
      for (const [why, count] of Object.entries(result.absorbed)) {
        if (count > 0) this.metrics.statuses.inc({ outcome: why }, count);
      }
      const unmatched = new Set(result.unknown);
      const archived = await this.archived.archivedOf(
        reports.filter((report) => unmatched.has(report.index)),
      );
      this.metrics.statuses.inc({ outcome: 'archived' }, archived.size);
      this.metrics.statuses.inc({ outcome: 'unknown' }, result.unknown.length - archived.size);
      for (const index of result.unknown) {
        if (archived.has(index)) continue;
        unknown.push({
          index,
          code: MessageHandlingErrorCode.MessageUnknown,
          reason: 'the status names no message of this credential',
        });
      }
    }
    if (inbound.length > 0) unknown.push(...(await this.applyInbound(messages, inbound)));
    if (unknown.length > 0) await this.deadLetter(messages, unknown);
  }

  private async applyInbound(
    messages: readonly ConsumedMessage<ProviderEventV1>[],
    indexes: readonly number[],
  ): Promise<{ index: number; code: MessageHandlingErrorCode; reason: string }[]> {
    const owners = await this.inbound.ownersOf(indexes.map((i) => messages[i]?.value.credentialId ?? ''));
    const published: InboundMessageV1[] = [];
    const changes: { key: string; change: OptChange; item: OptOut }[] = [];
    const unknown: { index: number; code: MessageHandlingErrorCode; reason: string }[] = [];
    for (const index of indexes) {
      const event = messages[index]?.value;
      const item = event?.inbound;
      if (event === undefined || item === undefined) continue;
      const owner = owners.get(event.credentialId);
      if (owner === undefined) {
        unknown.push({
          index,
          code: MessageHandlingErrorCode.CredentialUnknown,
          reason: `no credential ${event.credentialId}`,
        });
        continue;
      }
      const optIn = !item.optOut && isOptInText(item.text, event.provider, owner.channel);
      if (item.optOut || optIn) {
        const address = optOutAddress(owner.channel, item.from);
        changes.push({
          key: `${owner.tenantId}\u0000${owner.channel}\u0000${address}`,
          change: item.optOut ? 'opt-out' : 'opt-in',
          item: { ...owner, address, source: `inbound:${event.provider}` },
        });
      }
      published.push(inboundMessageOf(event, item, owner, optIn));
    }
    // Keyword replies of one address in this chunk: the last one wins (STOP then START is opted in).
    const { optOuts, optIns } = latestOptChanges(changes);
    // The change is durable before the reply is announced, so a campaign started on the news honours it.
    await this.inbound.recordOptOuts(optOuts);
    await this.inbound.removeOptOuts(optIns);
    await this.producer.publish(Topics.inboundMessages, published);
    this.metrics.inbound.inc({ outcome: 'published' }, published.length);
    this.metrics.inbound.inc({ outcome: 'opt_out' }, optOuts.length);
    this.metrics.inbound.inc({ outcome: 'opt_in' }, optIns.length);
    this.metrics.inbound.inc({ outcome: 'unknown_credential' }, unknown.length);
    return unknown;
  }

  private async deadLetter(
    messages: readonly ConsumedMessage<ProviderEventV1>[],
    failures: readonly { index: number; code: MessageHandlingErrorCode; reason: string }[],
  ): Promise<void> {
    const failedAt = new Date().toISOString();
    const letters: DeadLetterV1[] = [];
    for (const { index, code, reason } of failures) {
      const message = messages[index];
      if (message === undefined) continue;
      letters.push({
        sourceTopic: message.topic,
        sourcePartition: message.partition,
        sourceOffset: message.offset,
        consumerGroup: STATUS_GROUP,
        ...(message.key === null ? {} : { key: message.key.slice(0, 1024) }),
        value: JSON.stringify(message.value),
        valueEncoding: 'utf8',
        headers: { ...message.headers },
        errorCode: code,
        reason,
        attempts: message.attempt + 1,
        failedAt,
      });
    }
    await this.producer.publish(Topics.deadLetters, letters);
  }
}

function inboundMessageOf(
  event: ProviderEventV1,
  item: ProviderInboundV1,
  owner: CredentialOwner,
  optIn: boolean,
): InboundMessageV1 {
  return {
    eventId: event.eventId,
    tenantId: owner.tenantId,
    credentialId: event.credentialId,
    channel: owner.channel,
    from: item.from,
    to: item.to,
    ...(item.text === undefined ? {} : { text: item.text }),
    ...(item.mediaRef === undefined ? {} : { mediaRef: item.mediaRef }),
    ...(item.mediaType === undefined ? {} : { mediaType: item.mediaType }),
    providerMessageId: item.providerMessageId,
    optOut: item.optOut,
    optIn,
    occurredAt: item.occurredAt,
  };
}
