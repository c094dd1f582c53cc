import { Module } from '@nestjs/common';
import { DeadLettersConsumer } from './dead-letters.consumer';
import { DeadLettersController } from './dead-letters.controller';
import { DeadLettersRepository } from './dead-letters.repository';
import { DeadLettersService } from './dead-letters.service';

/** Dead letters for operators: stored from `ums.dead-letters.v1`, listed, shown and replayed. */
@Module({
  controllers: [DeadLettersController],
  providers: [DeadLettersRepository, DeadLettersService, DeadLettersConsumer],
})
export class DeadLettersModule {}
