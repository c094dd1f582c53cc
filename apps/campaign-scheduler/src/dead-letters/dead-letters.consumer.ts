import { Controller } from '@nestjs/common';
import { ConsumerGroups, type DeadLetterV1, Topics } from '@ums/contracts';
import { ConsumeTopic, type ConsumedMessage } from '@ums/platform';
import { DeadLettersService } from './dead-letters.service';

/**
 * Stores every dead letter for the operator API. Its own failures (the database away) are retried in
 * place without end rather than dead-lettered: a dead letter of a dead letter would come back to this
 * same topic and loop. An entry is stored once however often it is consumed.
 */
// A controller of the Kafka transport (event patterns), with no HTTP routes.
@Controller()
export class DeadLettersConsumer {
  constructor(private readonly deadLetters: DeadLettersService) {}

  @ConsumeTopic({
    topic: Topics.deadLetters,
    groupId: ConsumerGroups.schedulerDeadLetters,
    chunkSize: 100,
    inPlaceAttempts: Number.MAX_SAFE_INTEGER,
  })
  async onDeadLetters(messages: readonly ConsumedMessage<DeadLetterV1>[]): Promise<void> {
    await this.deadLetters.store(messages.map((m) => m.value));
  }
}
