import { Module } from '@nestjs/common';
import { CredentialRateSecondsRepository } from './credential-rate-seconds.repository';
import { CredentialRateSecondsService } from './credential-rate-seconds.service';
import { RateLimitModule } from './rate-limit.module';

/** Writes the rate limiter's per-second figures to `credential_rate_seconds` (needs MySQL). */
@Module({
  imports: [RateLimitModule],
  providers: [CredentialRateSecondsRepository, CredentialRateSecondsService],
})
export class CredentialRateSecondsModule {}
