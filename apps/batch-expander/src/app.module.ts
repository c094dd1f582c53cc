import { Module } from '@nestjs/common';
import { PlatformModule } from '@ums/platform';

/** Root module of batch-expander; features are added as modules under src/<feature>/. */
@Module({
  imports: [PlatformModule.forService({ service: 'batch-expander', kafka: true, mysql: true, redis: false })],
})
export class BatchExpanderModule {}
