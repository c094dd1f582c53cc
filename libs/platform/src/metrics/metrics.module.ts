import { Global, Module } from '@nestjs/common';
import { ServiceInfo } from '../bootstrap/service-info';
import { MetricsController } from './metrics.controller';
import { MetricsRegistry } from './metrics-registry';

@Global()
@Module({
  controllers: [MetricsController],
  providers: [
    {
      provide: MetricsRegistry,
      inject: [ServiceInfo],
      useFactory: (s: ServiceInfo) => new MetricsRegistry(s.name),
    },
  ],
  exports: [MetricsRegistry],
})
export class MetricsModule {}
