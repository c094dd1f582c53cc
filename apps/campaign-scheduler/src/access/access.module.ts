import { Module } from '@nestjs/common';
import { ApiKeysController } from './api-keys.controller';
import { ApiKeysService } from './api-keys.service';
import { AuditController } from './audit.controller';

/** Who may call the APIs: the tenants' API keys and the audit trail of what callers changed. */
@Module({
  controllers: [ApiKeysController, AuditController],
  providers: [ApiKeysService],
})
export class AccessModule {}
