import { Controller } from '@nestjs/common';
import { ConsumerGroups, type SendRequestV1, Topics } from '@ums/contracts';
import { ConsumeTopic, type ConsumedMessage } from '@ums/platform';
import { SendRequestsService } from './send-requests.service';

/**
 * Producers' send requests. Schema violations are dead-lettered by the platform before this runs;
 * requests refused by our rules (unknown credential, invalid recipient) are dead-lettered with the reason.
 */
// A controller of the Kafka transport (event patterns), with no HTTP routes.
@Controller()
export class SendRequestsConsumer {
  constructor(private readonly requests: SendRequestsService) {}

  @ConsumeTopic({
    topic: Topics.sendRequests,
    groupId: ConsumerGroups.schedulerSendRequests,
    chunkSize: 1,
    concurrency: 16,
  })
  async onSendRequests(messages: readonly ConsumedMessage<SendRequestV1>[]): Promise<void> {
    for (const message of messages) await this.requests.handle(message.value);
  }
}
