import { Module } from '@nestjs/common';
import { PlatformModule } from '@ums/platform';

/** Root module of provider-simulator; features are added as modules under src/<feature>/. */
@Module({
  imports: [
    PlatformModule.forService({ service: 'provider-simulator', kafka: false, mysql: false, redis: false }),
  ],
})
export class ProviderSimulatorModule {}
