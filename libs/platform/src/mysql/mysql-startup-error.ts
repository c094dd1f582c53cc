import { type Connection, createConnection } from 'mysql2/promise';
import { MysqlErrorCode } from '@ums/contracts';
import { CodedError } from '../errors/coded-error';
import { type MysqlConnectionSettings, mysql2SslOptions } from './mysql-connection-settings';

/** Why MySQL refused a service at start-up, naming the setting to fix; never carries the password. */
export class MysqlStartupError extends CodedError {
  constructor(
    code: MysqlErrorCode,
    message: string,
    readonly setting: string,
    options?: { cause?: unknown },
  ) {
    super(code, message, { setting }, options);
  }
}

/** Node's codes for a chain that does not lead to a trusted CA. */
const UNTRUSTED_CHAIN =
  /self[- ]signed certificate|unable to verify the first certificate|unable to get (local )?issuer certificate|certificate signature failure/i;

/**
 * The error a service reports when it cannot connect for a reason no retry cures (a refused account,
 * a certificate its CA does not vouch for, a plain connection to a TLS-only server), or undefined for
 * anything else (the server is down, ...), which start-up retries.
 */
export function mysqlStartupError(
  error: unknown,
  settings: Pick<MysqlConnectionSettings, 'host' | 'port' | 'user' | 'tls'>,
): MysqlStartupError | undefined {
  const e = (typeof error === 'object' && error !== null ? error : {}) as Record<string, unknown>;
  const code = typeof e['code'] === 'string' ? e['code'] : '';
  const message = typeof e['message'] === 'string' ? e['message'] : '';
  const where = `${settings.host}:${settings.port}`;
  const mode = settings.tls?.mode ?? 'DISABLED';
  if (code === 'ER_SECURE_TRANSPORT_REQUIRED' || /insecure transport are prohibited/i.test(message)) {
    return new MysqlStartupError(
      MysqlErrorCode.TlsRequired,
      `MySQL at ${where} accepts TLS connections only; MYSQL_SSL_MODE is ${mode}: set it to VERIFY_CA or VERIFY_IDENTITY`,
      'MYSQL_SSL_MODE',
      { cause: error },
    );
  }
  if (code === 'ER_ACCESS_DENIED_ERROR' || code === 'ER_DBACCESS_DENIED_ERROR') {
    // The server says the same to an account created REQUIRE X509 that showed no client certificate.
    const certificate =
      settings.tls !== undefined && settings.tls.cert === undefined
        ? ', or MYSQL_SSL_CERT_FILE and MYSQL_SSL_KEY_FILE if the account requires a client certificate'
        : '';
    return new MysqlStartupError(
      MysqlErrorCode.AuthFailed,
      `MySQL at ${where} refused the account: check MYSQL_USER ('${settings.user}') and MYSQL_PASSWORD${certificate} (${message})`,
      'MYSQL_PASSWORD',
      { cause: error },
    );
  }
  if (code === 'HANDSHAKE_NO_SSL_SUPPORT') {
    return new MysqlStartupError(
      MysqlErrorCode.TlsUnavailable,
      `MYSQL_SSL_MODE is ${mode} but MySQL at ${where} does not offer TLS`,
      'MYSQL_SSL_MODE',
      { cause: error },
    );
  }
  if (code === 'HANDSHAKE_SSL_ERROR') return tlsError(error, message, where, mode);
  return undefined;
}

function tlsError(error: unknown, message: string, where: string, mode: string): MysqlStartupError {
  if (UNTRUSTED_CHAIN.test(message)) {
    return new MysqlStartupError(
      MysqlErrorCode.TlsUntrusted,
      `TLS handshake with MySQL at ${where} failed: its certificate is not signed by a CA in MYSQL_SSL_CA_FILE (${message})`,
      'MYSQL_SSL_CA_FILE',
      { cause: error },
    );
  }
  if (/altnames|does not match certificate|Hostname\/IP/i.test(message)) {
    return new MysqlStartupError(
      MysqlErrorCode.TlsHostMismatch,
      `TLS handshake with MySQL at ${where} failed: its certificate does not name MYSQL_HOST (MYSQL_SSL_MODE ${mode}; ${message})`,
      'MYSQL_HOST',
      { cause: error },
    );
  }
  return new MysqlStartupError(
    MysqlErrorCode.TlsFailed,
    `TLS handshake with MySQL at ${where} failed (MYSQL_SSL_MODE ${mode}; MYSQL_SSL_CERT_FILE, MYSQL_SSL_KEY_FILE: ${message})`,
    'MYSQL_SSL_MODE',
    { cause: error },
  );
}

/**
 * mysqlStartupError, and more: MariaDB answers a plain connection to a server that requires TLS
 * (require_secure_transport) with the same "access denied" as a wrong password. So a denial of a
 * connection without TLS is tried once more over TLS (unverified: the question is only whether the
 * server takes these credentials that way); if that works, the error names MYSQL_SSL_MODE.
 */
export async function explainMysqlRefusal(
  error: unknown,
  settings: Pick<MysqlConnectionSettings, 'host' | 'port' | 'user' | 'password' | 'tls'>,
): Promise<MysqlStartupError | undefined> {
  const explained = mysqlStartupError(error, settings);
  if (explained?.code !== MysqlErrorCode.AuthFailed || settings.tls !== undefined) return explained;
  const acceptedOverTls = await createConnection({
    host: settings.host,
    port: settings.port,
    user: settings.user,
    password: settings.password,
    ssl: { rejectUnauthorized: false },
    connectTimeout: 5_000,
  }).then(
    async (connection) => {
      await connection.end();
      return true;
    },
    () => false,
  );
  if (!acceptedOverTls) return explained;
  return mysqlStartupError({ code: 'ER_SECURE_TRANSPORT_REQUIRED', message: '' }, settings);
}

/**
 * One mysql2 connection to the server with no schema selected (the schema may not exist yet), as
 * the account of `settings` over its TLS settings; a refusal is explained by the setting at fault.
 * For tools that run DDL or grants (migrate, db:grants), not for services.
 */
export async function connectMysqlServer(
  settings: Pick<MysqlConnectionSettings, 'host' | 'port' | 'user' | 'password' | 'tls'>,
): Promise<Connection> {
  try {
    return await createConnection({
      host: settings.host,
      port: settings.port,
      user: settings.user,
      password: settings.password,
      ...(settings.tls === undefined ? {} : { ssl: mysql2SslOptions(settings.tls) }),
    });
  } catch (error: unknown) {
    throw (await explainMysqlRefusal(error, settings)) ?? error;
  }
}
