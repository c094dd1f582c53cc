import { Global, Module } from '@nestjs/common';
import { ServiceInfo } from '../bootstrap/service-info';
import { MetricsRegistry } from './metrics-registry';

/** The service's prom-client registry, scraped on the management listener (management/). */
@Global()
@Module({
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
