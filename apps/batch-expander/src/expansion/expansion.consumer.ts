import { Controller } from '@nestjs/common';
import { ConsumerGroups, type RunRequestedV1, Topics } from '@ums/contracts';
import { ConsumeTopic, type ConsumedMessage } from '@ums/platform';
import { ExpansionService } from './expansion.service';

/** Run requests from the scheduler (due runs, stale-checkpoint retries, resumes, hand-overs). */
// A controller of the Kafka transport (event patterns), with no HTTP routes.
@Controller()
export class ExpansionConsumer {
  constructor(private readonly expansion: ExpansionService) {}

  @ConsumeTopic({
    topic: Topics.runRequested,
    groupId: ConsumerGroups.expander,
    chunkSize: 1,
    concurrency: 8,
  })
  async onRunRequested(messages: readonly ConsumedMessage<RunRequestedV1>[]): Promise<void> {
    for (const message of messages) await this.expansion.accept(message.value);
  }
}
