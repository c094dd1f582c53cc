import { Module } from '@nestjs/common';
import { DeadLetterMaintenanceService } from './dead-letter-maintenance.service';
import { DeadLettersConsumer } from './dead-letters.consumer';
import { DeadLettersController } from './dead-letters.controller';
import { DeadLettersMetrics } from './dead-letters.metrics';
import { DeadLettersRepository } from './dead-letters.repository';
import { DeadLettersService } from './dead-letters.service';

/**
 * Dead letters for operators: stored from `ums.dead-letters.v1`, listed, shown and replayed; counted while
 * open, and deleted a while after their replay.
 */
@Module({
  controllers: [DeadLettersController, DeadLettersConsumer],
  providers: [DeadLettersRepository, DeadLettersService, DeadLettersMetrics, DeadLetterMaintenanceService],
})
export class DeadLettersModule {}
