import { readFileSync } from 'node:fs';
import type { MysqlConfig } from '../config/common.config';
import type { MysqlConnectionSettings, MysqlTlsSettings } from './mysql-connection-settings';

export function mysqlSettingsFrom(config: MysqlConfig): MysqlConnectionSettings {
  const tls = mysqlTlsFrom(config);
  return {
    host: config.MYSQL_HOST,
    port: config.MYSQL_PORT,
    user: config.MYSQL_USER,
    password: config.MYSQL_PASSWORD,
    database: config.MYSQL_DATABASE,
    poolSize: config.MYSQL_POOL_SIZE,
    ...(tls === undefined ? {} : { tls }),
  };
}

/** The read endpoint's settings (same account, TLS and schema), or undefined when none is configured. */
export function mysqlReadSettingsFrom(config: MysqlConfig): MysqlConnectionSettings | undefined {
  if (config.MYSQL_READ_HOST === undefined) return undefined;
  return {
    ...mysqlSettingsFrom(config),
    host: config.MYSQL_READ_HOST,
    port: config.MYSQL_READ_PORT ?? config.MYSQL_PORT,
  };
}

function mysqlTlsFrom(config: MysqlConfig): MysqlTlsSettings | undefined {
  if (config.MYSQL_SSL_MODE === 'DISABLED') return undefined;
  // The files were checked readable by config validation.
  const read = (file: string | undefined): string | undefined =>
    file === undefined ? undefined : readFileSync(file, 'utf8');
  const ca = read(config.MYSQL_SSL_CA_FILE);
  const cert = read(config.MYSQL_SSL_CERT_FILE);
  const key = read(config.MYSQL_SSL_KEY_FILE);
  return {
    mode: config.MYSQL_SSL_MODE,
    ...(ca === undefined ? {} : { ca }),
    ...(cert === undefined ? {} : { cert }),
    ...(key === undefined ? {} : { key }),
  };
}
