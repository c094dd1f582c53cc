import { Module } from '@nestjs/common';
import { PlatformModule } from '@ums/platform';
import { ConsoleProxyConfig } from './proxy/console-proxy.config';
import { ConsoleProxyModule } from './proxy/console-proxy.module';
import { SecurityHeadersModule } from './security/security-headers.module';
import { ShutdownModule } from './shutdown/shutdown.module';
import { WebAssetsModule } from './web-assets/web-assets.module';

/**
 * Root module of operator-console: the browser app (Vite build) and its API calls passed on to the
 * campaign-scheduler and the webhook-dispatcher. No Kafka, MySQL or Redis, no key and no state: every
 * call carries the signed-in user's key, which the API behind checks.
 */
@Module({
  imports: [
    PlatformModule.forService({
      service: 'operator-console',
      kafka: false,
      mysql: false,
      redis: false,
      configs: [ConsoleProxyConfig],
      // Its handlers log little of their own: request lines come from a hook, no middleware runs.
      requestLogs: 'hook',
    }),
    SecurityHeadersModule,
    ConsoleProxyModule,
    WebAssetsModule,
    ShutdownModule,
  ],
})
export class OperatorConsoleModule {}
