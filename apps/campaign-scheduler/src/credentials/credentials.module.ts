import { Module } from '@nestjs/common';
import { SecretsModule } from '@ums/platform';
import { CredentialsController } from './credentials.controller';
import { CredentialsRepository } from './credentials.repository';
import { CredentialsService } from './credentials.service';

/** Provider accounts (credentials table): create, read, list, update; secrets sealed at rest. */
@Module({
  imports: [SecretsModule],
  controllers: [CredentialsController],
  providers: [CredentialsService, CredentialsRepository],
  exports: [CredentialsService],
})
export class CredentialsModule {}
