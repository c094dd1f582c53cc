import { DataSource, type DataSourceOptions } from 'typeorm';
import { allMigrations } from './migrations';
import { type MysqlConnectionSettings, mysql2SslOptions } from './mysql-connection-settings';

/**
 * TypeORM options shared by every service and by the migration tooling.
 * The schema is owned by migrations only: synchronize stays off, and migrations are
 * listed as classes (not globs) so the compiled bundle and the tests run the same set.
 */
export function buildDataSourceOptions(settings: MysqlConnectionSettings): DataSourceOptions {
  return {
    type: 'mysql',
    connectorPackage: 'mysql2',
    host: settings.host,
    port: settings.port,
    username: settings.user,
    password: settings.password,
    database: settings.database,
    ...(settings.tls === undefined ? {} : { ssl: mysql2SslOptions(settings.tls) }),
    // Connection collation is pinned so MySQL 8 never falls back to utf8mb4_0900_ai_ci (MariaDB lacks it).
    charset: 'utf8mb4_unicode_ci',
    // DATETIME columns hold UTC; the driver converts JS Dates to and from UTC.
    timezone: 'Z',
    dateStrings: false,
    // BIGINT ids and counters come back as strings: JS numbers lose precision above 2^53.
    supportBigNumbers: true,
    bigNumberStrings: true,
    synchronize: false,
    migrationsRun: false,
    migrationsTableName: 'migrations',
    migrationsTransactionMode: 'each',
    migrations: allMigrations,
    // Apps register their entities through autoLoadEntities.
    entities: [],
    logging: false,
    extra: { connectionLimit: settings.poolSize },
  };
}

/** An uninitialized DataSource for scripts and tests; call initialize() before use. */
export function createDataSource(settings: MysqlConnectionSettings): DataSource {
  return new DataSource(buildDataSourceOptions(settings));
}
