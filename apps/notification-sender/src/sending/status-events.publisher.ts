import { Injectable } from '@nestjs/common';
import { type MessageStatusV1, Topics } from '@ums/contracts';
import { KafkaProducer } from '@ums/platform';
import type { StatusChange } from './status-change';

/** Every applied state change goes to the status topic, keyed by campaign, for downstream services. */
@Injectable()
export class StatusEventsPublisher {
  constructor(private readonly producer: KafkaProducer) {}

  /** A change without `occurredAt` (the provider's time of a reported status) takes the time of publishing. */
  async publish(changes: readonly StatusChange[]): Promise<void> {
    if (changes.length === 0) return;
    const now = new Date().toISOString();
    const events: MessageStatusV1[] = changes.map((change) => ({
      // Stable per transition, so a redelivered publish is recognizable downstream.
      eventId: `msg-${change.messageId}-${change.previous}-${change.status}`,
      messageId: change.messageId,
      tenantId: change.tenantId,
      campaignId: change.campaignId,
      ...(change.runId === null ? {} : { runId: change.runId }),
      channel: change.channel,
      recipient: change.recipient,
      status: change.status,
      previousStatus: change.previous,
      ...(change.providerMessageId === undefined ? {} : { providerMessageId: change.providerMessageId }),
      ...(change.reason === undefined ? {} : { reason: change.reason }),
      ...(change.errorCode === undefined ? {} : { errorCode: change.errorCode }),
      ...(change.errorText === undefined ? {} : { errorText: change.errorText }),
      occurredAt: change.occurredAt ?? now,
    }));
    await this.producer.publish(Topics.messageStatus, events);
  }
}
