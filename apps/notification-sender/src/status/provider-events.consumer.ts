import { Controller } from '@nestjs/common';
import { type ProviderEventV1, Topics } from '@ums/contracts';
import { ConsumeTopic, type ConsumedMessage } from '@ums/platform';
import { STATUS_GROUP, StatusApplicationService } from './status-application.service';

/**
 * Provider events from webhook-ingest, applied in chunks of up to 500 (one transaction and a few
 * statements each). One chunk per partition at a time: events are keyed by message, so the reports
 * of one message are applied in the order the provider's callbacks were stored.
 */
// A controller of the Kafka transport (event patterns), with no HTTP routes.
@Controller()
export class ProviderEventsConsumer {
  constructor(private readonly application: StatusApplicationService) {}

  @ConsumeTopic({
    topic: Topics.providerEvents,
    groupId: STATUS_GROUP,
    chunkSize: 500,
    concurrency: 1,
    partitionsConsumedConcurrently: 4,
  })
  async onEvents(messages: readonly ConsumedMessage<ProviderEventV1>[]): Promise<void> {
    await this.application.apply(messages);
  }
}
