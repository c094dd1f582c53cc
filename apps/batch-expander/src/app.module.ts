import { Module } from '@nestjs/common';
import { PlatformModule } from '@ums/platform';
import { ExpansionConfig } from './expansion/expansion.config';
import { ExpansionModule } from './expansion/expansion.module';

/** Root module of batch-expander: run requests in, batches of recipients out, checkpoints in MySQL. */
@Module({
  imports: [
    PlatformModule.forService({
      service: 'batch-expander',
      kafka: true,
      mysql: true,
      redis: false,
      configs: [ExpansionConfig],
    }),
    ExpansionModule,
  ],
})
export class BatchExpanderModule {}
