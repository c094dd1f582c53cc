import { Global, Module } from '@nestjs/common';
import { SecretsModule } from '../crypto/secrets.module';
import { IdempotencyInterceptor } from './idempotency.interceptor';
import { IdempotencyKeysRepository } from './idempotency-keys.repository';
import { IdempotencyService } from './idempotency.service';
import { IdempotencySweeper } from './idempotency-sweeper.service';

/**
 * Idempotency keys for the create routes of a service (`@Idempotent()`): the store, the interceptor and
 * the sweeper of expired keys. Needs MySQL and SecretsConfig (answers are sealed at rest).
 */
@Global()
@Module({
  imports: [SecretsModule],
  providers: [IdempotencyKeysRepository, IdempotencyService, IdempotencySweeper, IdempotencyInterceptor],
  exports: [IdempotencyService, IdempotencyInterceptor],
})
export class IdempotencyModule {}
