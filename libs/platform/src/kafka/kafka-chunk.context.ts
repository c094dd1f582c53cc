import { BaseRpcContext } from '@nestjs/microservices';
import type { ConsumeTopicOptions } from './consume-topic.decorator';
import type { ConsumedMessage } from './consumed-message';

/** What a handler may take with `@Ctx()`: the chunk and the registration it came through. */
export class KafkaChunkContext extends BaseRpcContext<
  [readonly ConsumedMessage<object>[], ConsumeTopicOptions<object>]
> {
  constructor(messages: readonly ConsumedMessage<object>[], registration: ConsumeTopicOptions<object>) {
    super([messages, registration]);
  }

  getMessages(): readonly ConsumedMessage<object>[] {
    return this.args[0];
  }

  getRegistration(): ConsumeTopicOptions<object> {
    return this.args[1];
  }
}
