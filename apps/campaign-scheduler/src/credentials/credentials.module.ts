import { Module } from '@nestjs/common';
import { ProviderEndpointsModule, SecretsModule } from '@ums/platform';
import { CredentialRateService } from './credential-rate.service';
import { CredentialRateSecondsRepository } from './credential-rate-seconds.repository';
import { CredentialsController } from './credentials.controller';
import { CredentialsRepository } from './credentials.repository';
import { CredentialsService } from './credentials.service';

/**
 * Provider accounts (credentials table): create, read, list, update; secrets sealed at rest; what their
 * rate limiters did per second (credential_rate_seconds). Needs SecretsConfig and ProviderEndpointsConfig
 * in the app's configs.
 */
@Module({
  imports: [SecretsModule, ProviderEndpointsModule],
  controllers: [CredentialsController],
  providers: [
    CredentialsService,
    CredentialsRepository,
    CredentialRateService,
    CredentialRateSecondsRepository,
  ],
  exports: [CredentialsService],
})
export class CredentialsModule {}
