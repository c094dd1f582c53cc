import { Module } from '@nestjs/common';
import { OptOutsController } from './opt-outs.controller';
import { OptOutsRepository } from './opt-outs.repository';
import { OptOutsService } from './opt-outs.service';

/** The tenant's opt-outs: list, add, remove, CSV import and export. */
@Module({
  controllers: [OptOutsController],
  providers: [OptOutsRepository, OptOutsService],
})
export class OptOutsModule {}
