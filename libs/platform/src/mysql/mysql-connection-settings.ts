/** Where and how to reach the MySQL/MariaDB server; built by the config layer or by test helpers. */
export interface MysqlConnectionSettings {
  host: string;
  port: number;
  user: string;
  password: string;
  database: string;
  /** Upper bound of pooled connections per process. */
  poolSize: number;
}
