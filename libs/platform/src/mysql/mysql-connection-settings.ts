import type { MysqlSslMode } from '../config/mysql-config.validators';

/** TLS of a MySQL connection: the mode and the PEM texts (read from the MYSQL_SSL_*_FILE files). */
export interface MysqlTlsSettings {
  readonly mode: Exclude<MysqlSslMode, 'DISABLED'>;
  /** Trusted CAs; the system's when unset. */
  readonly ca?: string;
  /** A client certificate and its key (both or neither). */
  readonly cert?: string;
  readonly key?: string;
}

/** Where and how to reach the MySQL/MariaDB server; built by the config layer or by test helpers. */
export interface MysqlConnectionSettings {
  host: string;
  port: number;
  user: string;
  password: string;
  database: string;
  /** Upper bound of pooled connections per process. */
  poolSize: number;
  /** TLS; none when unset (MYSQL_SSL_MODE=DISABLED). */
  tls?: MysqlTlsSettings;
}

/** The mysql2 `ssl` option for these settings (undefined: no TLS). */
export function mysql2SslOptions(
  tls: MysqlTlsSettings | undefined,
):
  | { ca?: string; cert?: string; key?: string; rejectUnauthorized: boolean; verifyIdentity: boolean }
  | undefined {
  if (tls === undefined) return undefined;
  return {
    ...(tls.ca === undefined ? {} : { ca: tls.ca }),
    ...(tls.cert === undefined ? {} : { cert: tls.cert }),
    ...(tls.key === undefined ? {} : { key: tls.key }),
    // REQUIRED encrypts without checking who answers, as the mysql client's --ssl-mode=REQUIRED does.
    rejectUnauthorized: tls.mode !== 'REQUIRED',
    verifyIdentity: tls.mode === 'VERIFY_IDENTITY',
  };
}
