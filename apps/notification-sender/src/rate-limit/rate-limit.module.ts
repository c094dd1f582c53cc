import { Module } from '@nestjs/common';
import { CredentialRateSecondsAccumulator } from './credential-rate-seconds.accumulator';
import { RateLimitConfig } from './rate-limit.config';
import { RateLimitMetrics } from './rate-limit.metrics';
import { RateLimitRepository } from './rate-limit.repository';
import { RateLimitService } from './rate-limit.service';

/**
 * Per-credential token buckets in Redis with fair shares, a priority lane, tenant caps and AIMD, and
 * what they did per second (CredentialRateSecondsAccumulator; CredentialRateSecondsModule writes it).
 */
@Module({
  providers: [
    RateLimitRepository,
    RateLimitService,
    RateLimitMetrics,
    {
      provide: CredentialRateSecondsAccumulator,
      inject: [RateLimitConfig, RateLimitMetrics],
      useFactory: (config: RateLimitConfig, metrics: RateLimitMetrics) =>
        new CredentialRateSecondsAccumulator({
          maxSeconds: config.RATE_LIMIT_SECONDS_MAX_PENDING,
          onDropped: (rows) => metrics.secondsDropped.inc(rows),
        }),
    },
  ],
  exports: [RateLimitService, RateLimitMetrics, CredentialRateSecondsAccumulator],
})
export class RateLimitModule {}
