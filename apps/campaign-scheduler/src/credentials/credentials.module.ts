import { Module } from '@nestjs/common';
import { ProviderEndpointsModule, SecretsModule } from '@ums/platform';
import { CredentialsController } from './credentials.controller';
import { CredentialsRepository } from './credentials.repository';
import { CredentialsService } from './credentials.service';

/**
 * Provider accounts (credentials table): create, read, list, update; secrets sealed at rest. Needs
 * SecretsConfig and ProviderEndpointsConfig in the app's configs.
 */
@Module({
  imports: [SecretsModule, ProviderEndpointsModule],
  controllers: [CredentialsController],
  providers: [CredentialsService, CredentialsRepository],
  exports: [CredentialsService],
})
export class CredentialsModule {}
