import type { MysqlConfig } from '../config/common.config';
import type { MysqlConnectionSettings } from './mysql-connection-settings';

export function mysqlSettingsFrom(config: MysqlConfig): MysqlConnectionSettings {
  return {
    host: config.MYSQL_HOST,
    port: config.MYSQL_PORT,
    user: config.MYSQL_USER,
    password: config.MYSQL_PASSWORD,
    database: config.MYSQL_DATABASE,
    poolSize: config.MYSQL_POOL_SIZE,
  };
}
