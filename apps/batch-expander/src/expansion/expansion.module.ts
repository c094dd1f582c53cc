import { Module } from '@nestjs/common';
import { ExpansionConsumer } from './expansion.consumer';
import { ExpansionMetrics } from './expansion.metrics';
import { ExpansionRepository } from './expansion.repository';
import { ExpansionService } from './expansion.service';

/** Turns run requests into batches on Kafka under a fenced lease, with a checkpoint per step. */
@Module({
  controllers: [ExpansionConsumer],
  providers: [ExpansionRepository, ExpansionMetrics, ExpansionService],
})
export class ExpansionModule {}
