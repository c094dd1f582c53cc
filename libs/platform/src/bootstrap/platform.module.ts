import { type DynamicModule, Module } from '@nestjs/common';
import { APP_GUARD, APP_INTERCEPTOR, DiscoveryModule } from '@nestjs/core';
import { AuditInterceptor } from '../auth/audit.interceptor';
import { AuthConfig } from '../auth/auth.config';
import { AuthGuard } from '../auth/auth.guard';
import { AuthModule } from '../auth/auth.module';
import { RouteAuthCheck } from '../auth/route-auth.check';
import {
  HttpConfig,
  KafkaConfig,
  LogConfig,
  MysqlConfig,
  RedisConfig,
  RuntimeConfig,
} from '../config/common.config';
import { type ConfigClass } from '../config/config-loader';
import { ConfigModule } from '../config/config.module';
import { type EnvSource, processEnv } from '../config/env-source';
import { HealthModule } from '../health/health.module';
import { FastRoutes } from '../http/fast-routes.registry';
import type { OpenApiInfo } from '../http/openapi/openapi-document';
import { OpenApiModule } from '../http/openapi/openapi.module';
import { OpenApiPublication } from '../http/openapi/openapi-publication';
import { KafkaModule } from '../kafka/kafka.module';
import { KafkaTransportHost } from '../kafka/kafka-transport.connect';
import { LoggingModule, type RequestLogMode } from '../logging/logging.module';
import { ManagementModule } from '../management/management.module';
import { MetricsModule } from '../metrics/metrics.module';
import { MysqlModule } from '../mysql/mysql.module';
import { RedisModule } from '../redis/redis.module';
import { ServiceInfo } from './service-info';

export interface PlatformOptions {
  readonly service: string;
  /** Which infrastructure this service uses; each adds its config, connection and readiness check. */
  readonly kafka: boolean;
  readonly mysql: boolean;
  readonly redis: boolean;
  /**
   * The service has an authenticated API: API keys (needs mysql), the operator key, JWTs and the audit
   * trail. Every service gets the guard and refuses to start with a route that declares no protection.
   */
  readonly api?: boolean;
  /** The service's own config classes, validated together with the platform's. */
  readonly configs?: readonly ConfigClass[];
  /** How request logs are written (see RequestLogMode); `middleware` unless said otherwise. */
  readonly requestLogs?: RequestLogMode;
  /** The service describes its API: `GET /openapi.json` and the reference page `/docs` (serveOpenApi). */
  readonly openApi?: OpenApiInfo;
  readonly env?: EnvSource;
}

/**
 * Composes config, logs, metrics, health (and the management listener serving them) and the chosen
 * infrastructure for one service.
 */
@Module({})
export class PlatformModule {
  static forService(options: PlatformOptions): DynamicModule {
    const configs: ConfigClass[] = [HttpConfig, LogConfig, RuntimeConfig, ...(options.configs ?? [])];
    const imports: DynamicModule['imports'] = [];
    if (options.kafka) {
      configs.push(KafkaConfig);
      imports.push(KafkaModule);
    }
    if (options.mysql) {
      configs.push(MysqlConfig);
      imports.push(MysqlModule.forService(options.service));
    }
    if (options.redis) {
      configs.push(RedisConfig);
      imports.push(RedisModule);
    }
    if (options.api === true) {
      if (!options.mysql) throw new Error('An authenticated API needs MySQL (its keys and audit trail)');
      configs.push(AuthConfig);
      imports.push(AuthModule);
    }
    if (options.openApi !== undefined) imports.push(OpenApiModule);
    const serviceInfo = { provide: ServiceInfo, useValue: new ServiceInfo(options.service) };
    const openApi = { provide: OpenApiPublication, useValue: new OpenApiPublication(options.openApi) };
    return {
      module: PlatformModule,
      global: true,
      imports: [
        ConfigModule.forRoot(configs, options.env ?? processEnv()),
        LoggingModule.forRoot(options.requestLogs),
        MetricsModule,
        HealthModule,
        ManagementModule,
        DiscoveryModule,
        ...imports,
      ],
      providers: [
        serviceInfo,
        openApi,
        FastRoutes,
        RouteAuthCheck,
        KafkaTransportHost,
        { provide: APP_GUARD, useClass: AuthGuard },
        { provide: APP_INTERCEPTOR, useClass: AuditInterceptor },
      ],
      exports: [serviceInfo, openApi, FastRoutes],
    };
  }
}
