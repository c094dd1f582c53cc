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
      // A consumer: no request context tracking every promise of the process (see RequestLogMode).
      requestLogs: 'hook',
    }),
    ExpansionModule,
  ],
})
export class BatchExpanderModule {}
