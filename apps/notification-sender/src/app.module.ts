import { Module } from '@nestjs/common';
import { PlatformModule, ProviderEndpointsConfig, SecretsConfig } from '@ums/platform';
import { ProvidersConfig } from './providers/providers.config';
import { ProvidersModule } from './providers/providers.module';
import { CredentialRateSecondsModule } from './rate-limit/credential-rate-seconds.module';
import { RateLimitConfig } from './rate-limit/rate-limit.config';
import { RateLimitModule } from './rate-limit/rate-limit.module';
import { SendingConfig } from './sending/sending.config';
import { SendingModule } from './sending/sending.module';
import { StatusModule } from './status/status.module';
import { StatusRefreshConfig } from './status-refresh/status-refresh.config';
import { StatusRefreshModule } from './status-refresh/status-refresh.module';

/** Root module of notification-sender: provider adapters, rate limits, and the claims core of sending. */
@Module({
  imports: [
    PlatformModule.forService({
      service: 'notification-sender',
      kafka: true,
      mysql: true,
      redis: true,
      configs: [
        RateLimitConfig,
        ProvidersConfig,
        ProviderEndpointsConfig,
        SecretsConfig,
        SendingConfig,
        StatusRefreshConfig,
      ],
      // A consumer: no request context tracking every promise of the process (see RequestLogMode).
      requestLogs: 'hook',
    }),
    RateLimitModule,
    CredentialRateSecondsModule,
    ProvidersModule,
    SendingModule,
    StatusModule,
    StatusRefreshModule,
  ],
})
export class NotificationSenderModule {}
