import { Module } from '@nestjs/common';
import { ApiKeysController } from './api-keys.controller';
import { ApiKeysService } from './api-keys.service';
import { AuditController } from './audit.controller';
import { WhoamiController } from './whoami.controller';

/** Who may call the APIs: the tenants' API keys, the caller's own principal, and the audit trail. */
@Module({
  controllers: [ApiKeysController, AuditController, WhoamiController],
  providers: [ApiKeysService],
})
export class AccessModule {}
