import { Global, Module } from '@nestjs/common';
import { ApiKeysRepository } from './api-keys.repository';
import { AuditEventsRepository } from './audit-events.repository';
import { AuditTrail } from './audit-trail.service';
import { JwtVerifier } from './jwt-verifier';
import { PrincipalResolver } from './principal-resolver.service';

/**
 * What a service with an authenticated API needs (with MySQL and AuthConfig): the key store, JWT
 * verification, the principal resolver and the audit trail. The guard, the audit interceptor and the
 * start-up route check are the platform's for every service (PlatformModule).
 */
@Global()
@Module({
  providers: [ApiKeysRepository, AuditEventsRepository, AuditTrail, JwtVerifier, PrincipalResolver],
  exports: [ApiKeysRepository, AuditEventsRepository, AuditTrail, PrincipalResolver],
})
export class AuthModule {}
