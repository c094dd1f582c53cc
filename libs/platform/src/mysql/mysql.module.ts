import { type DynamicModule, Injectable, Logger, Module, type OnApplicationShutdown } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { mysqlUserOfService } from '@ums/contracts';
import { DataSource, type DataSourceOptions } from 'typeorm';
import { MysqlConfig } from '../config/common.config';
import { HealthRegistry } from '../health/health-registry';
import { buildDataSourceOptions, createDataSource } from './data-source-options';
import type { MysqlConnectionSettings } from './mysql-connection-settings';
import { mysqlReadSettingsFrom, mysqlSettingsFrom } from './mysql-settings.mapper';
import { explainMysqlRefusal, MysqlStartupError, mysqlStartupError } from './mysql-startup-error';
import { assertGrants, checkServiceGrants } from './service-grants.check';

/**
 * Where the heavy read-only queries (message listing, CSV export) go: the read endpoint
 * (MYSQL_READ_HOST, a replica or a cluster's reader) when one is configured, else the primary.
 * Reads there may lag the primary by the replica's delay.
 */
@Injectable()
export class MysqlReadEndpoint implements OnApplicationShutdown {
  constructor(
    readonly dataSource: DataSource,
    /** Whether this is a pool of its own (closed at shutdown) rather than the primary's. */
    readonly separate: boolean,
  ) {}

  async onApplicationShutdown(): Promise<void> {
    if (this.separate && this.dataSource.isInitialized) await this.dataSource.destroy();
  }
}

/**
 * TypeORM over mysql2 with synchronize off; the schema comes only from migrations. At start-up the
 * service's account is checked against its grants (libs/contracts service-grants.ts): a missing one
 * stops the start naming it. A refused account or TLS handshake stops it at once, naming the setting;
 * an unreachable server is retried (9 times, 3 s apart).
 */
@Module({})
export class MysqlModule {
  static forService(service: string): DynamicModule {
    return {
      module: MysqlModule,
      global: true,
      imports: [
        TypeOrmModule.forRootAsync({
          inject: [MysqlConfig],
          useFactory: (config: MysqlConfig) => ({
            ...buildDataSourceOptions(mysqlSettingsFrom(config)),
            autoLoadEntities: true,
            toRetry: (error: unknown) => !(error instanceof MysqlStartupError),
          }),
          dataSourceFactory: (options?: DataSourceOptions) => openServiceDataSource(options, service),
        }),
      ],
      providers: [
        {
          provide: 'MYSQL_HEALTH',
          inject: [DataSource, HealthRegistry, MysqlConfig],
          useFactory: (dataSource: DataSource, health: HealthRegistry, config: MysqlConfig): true => {
            registerHealth(health, 'mysql', dataSource, mysqlSettingsFrom(config));
            return true;
          },
        },
        {
          provide: MysqlReadEndpoint,
          inject: [DataSource, HealthRegistry, MysqlConfig],
          useFactory: async (primary: DataSource, health: HealthRegistry, config: MysqlConfig) => {
            const settings = mysqlReadSettingsFrom(config);
            if (settings === undefined) return new MysqlReadEndpoint(primary, false);
            const reader = await connectOrExplain(createDataSource(settings), settings);
            registerHealth(health, 'mysql-read', reader, settings);
            return new MysqlReadEndpoint(reader, true);
          },
        },
      ],
      exports: [MysqlReadEndpoint],
    };
  }
}

function registerHealth(
  health: HealthRegistry,
  name: string,
  dataSource: DataSource,
  settings: MysqlConnectionSettings,
): void {
  health.register(name, async () => {
    try {
      await dataSource.query('SELECT 1');
    } catch (error: unknown) {
      // A rotated password or certificate shows up here first: say which setting, not just "denied".
      throw mysqlStartupError(error, settings) ?? error;
    }
    return { ok: true };
  });
}

/**
 * Connects as a service does at start-up: a refusal is explained by the setting at fault
 * (MysqlStartupError), then the account is checked against the service's grants (a missing one is
 * refused, DDL it never needs is warned about).
 */
export async function openServiceDataSource(
  options: DataSourceOptions | undefined,
  service: string,
): Promise<DataSource> {
  if (options?.type !== 'mysql') throw new Error('MysqlModule needs mysql DataSource options');
  const settings = settingsOf(options);
  const dataSource = await connectOrExplain(new DataSource(options), settings);
  const user = mysqlUserOfService(service);
  if (user === undefined) return dataSource;
  try {
    const result = await checkServiceGrants((sql, parameters) => dataSource.query(sql, parameters), {
      user,
      database: settings.database,
    });
    assertGrants(result, { user, login: settings.user });
    if (result.excess.length > 0) {
      new Logger('MysqlModule').warn(
        `MYSQL_USER '${settings.user}' holds ${result.excess.join(', ')}, which ${service} never needs: ` +
          `give it the grants of ${user} only`,
      );
    }
  } catch (error: unknown) {
    await dataSource.destroy();
    throw error;
  }
  return dataSource;
}

async function connectOrExplain(
  dataSource: DataSource,
  settings: MysqlConnectionSettings,
): Promise<DataSource> {
  try {
    return await dataSource.initialize();
  } catch (error: unknown) {
    throw (await explainMysqlRefusal(error, settings)) ?? error;
  }
}

/** What explaining a refusal needs, back from TypeORM's options (the mode from mysql2's ssl option). */
function settingsOf(
  options: Extract<DataSourceOptions, { type: 'mysql' | 'mariadb' }>,
): MysqlConnectionSettings {
  const ssl = options.ssl as
    { rejectUnauthorized?: boolean; verifyIdentity?: boolean; cert?: string } | undefined;
  const mode =
    ssl === undefined
      ? undefined
      : ssl.rejectUnauthorized === false
        ? 'REQUIRED'
        : ssl.verifyIdentity === true
          ? 'VERIFY_IDENTITY'
          : 'VERIFY_CA';
  return {
    host: options.host ?? '',
    port: options.port ?? 3306,
    user: options.username ?? '',
    password: options.password ?? '',
    database: options.database ?? '',
    poolSize: 0,
    ...(mode === undefined ? {} : { tls: { mode, ...(ssl?.cert === undefined ? {} : { cert: ssl.cert }) } }),
  };
}
