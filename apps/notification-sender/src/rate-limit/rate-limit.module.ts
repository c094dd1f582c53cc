import { Module } from '@nestjs/common';
import { RateLimitMetrics } from './rate-limit.metrics';
import { RateLimitRepository } from './rate-limit.repository';
import { RateLimitService } from './rate-limit.service';

/** Per-credential token buckets in Redis with fair shares, a priority lane, tenant caps and AIMD. */
@Module({
  providers: [RateLimitRepository, RateLimitService, RateLimitMetrics],
  exports: [RateLimitService],
})
export class RateLimitModule {}
