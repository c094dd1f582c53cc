import { Module } from '@nestjs/common';
import { ProviderEndpointPolicy } from '@ums/domain';
import { ProviderEndpointsConfig } from './provider-endpoints.config';

/** Provides the ProviderEndpointPolicy built from ProviderEndpointsConfig; the app lists that config in its configs. */
@Module({
  providers: [
    {
      provide: ProviderEndpointPolicy,
      inject: [ProviderEndpointsConfig],
      useFactory: (config: ProviderEndpointsConfig) => config.policy(),
    },
  ],
  exports: [ProviderEndpointPolicy],
})
export class ProviderEndpointsModule {}
