import { type DynamicModule, Module } from '@nestjs/common';
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
import { KafkaModule } from '../kafka/kafka.module';
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
  /** The service's own config classes, validated together with the platform's. */
  readonly configs?: readonly ConfigClass[];
  /** How request logs are written (see RequestLogMode); `middleware` unless said otherwise. */
  readonly requestLogs?: RequestLogMode;
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
      imports.push(MysqlModule);
    }
    if (options.redis) {
      configs.push(RedisConfig);
      imports.push(RedisModule);
    }
    const serviceInfo = { provide: ServiceInfo, useValue: new ServiceInfo(options.service) };
    return {
      module: PlatformModule,
      global: true,
      imports: [
        ConfigModule.forRoot(configs, options.env ?? processEnv()),
        LoggingModule.forRoot(options.requestLogs),
        MetricsModule,
        HealthModule,
        ManagementModule,
        ...imports,
      ],
      providers: [serviceInfo, FastRoutes],
      exports: [serviceInfo, FastRoutes],
    };
  }
}
