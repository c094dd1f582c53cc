import { Global, Module } from '@nestjs/common';
import { HealthRegistry } from './health-registry';

/** The readiness checks of the service, served by the management listener (management/). */
@Global()
@Module({ providers: [HealthRegistry], exports: [HealthRegistry] })
export class HealthModule {}
