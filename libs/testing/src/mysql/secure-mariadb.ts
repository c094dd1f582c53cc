import { join } from 'node:path';
import type { MysqlServiceUser } from '@ums/contracts';
import type { TestPki } from '../tls/test-pki';
import { type MariadbServerHandle, startMariadbServer } from './mariadb-server';
import { testMysqlPassword } from './test-database';

export interface SecureMariadbOptions {
  /** Where the server keeps its data. */
  readonly dir: string;
  /** The server's certificate and the CA clients verify it with. */
  readonly pki: TestPki;
  /** The schema to create (`ums` when omitted). */
  readonly database?: string;
}

export interface SecureMariadb {
  /** The migrator's environment (ums_migrator): MYSQL_* with TLS verified against the test CA. */
  readonly env: Readonly<Record<string, string>>;
  /** The environment of one account: its MYSQL_USER and MYSQL_PASSWORD, the server, TLS. */
  envFor(user: MysqlServiceUser): Record<string, string>;
  readonly server: MariadbServerHandle;
  stop(): Promise<void>;
}

/**
 * A MariaDB of the test's own that accepts TLS connections only (require_secure_transport=ON), with
 * the PKI's server certificate, and the platform's accounts granted on one schema (the production
 * grants, libs/contracts service-grants.ts; test passwords). Clients verify the server's certificate
 * and name (MYSQL_SSL_MODE=VERIFY_IDENTITY, MYSQL_SSL_CA_FILE the PKI's CA). The caller must stop() it.
 */
export async function startSecureMariadb(options: SecureMariadbOptions): Promise<SecureMariadb> {
  const { pki } = options;
  const server = await startMariadbServer({
    dir: join(options.dir, 'mariadb'),
    bufferPoolMb: 64,
    tls: {
      certFile: pki.server.certFile,
      keyFile: pki.server.keyFile,
      caFile: pki.ca.certFile,
      ca: pki.ca.cert,
      requireSecureTransport: true,
    },
  });
  const database = options.database ?? 'ums';
  try {
    await server.createDatabase(database);
  } catch (error: unknown) {
    await server.stop();
    throw error;
  }
  const envFor = (user: MysqlServiceUser): Record<string, string> => ({
    MYSQL_HOST: server.host,
    MYSQL_PORT: String(server.port),
    MYSQL_DATABASE: database,
    MYSQL_USER: user,
    MYSQL_PASSWORD: testMysqlPassword(user),
    MYSQL_SSL_MODE: 'VERIFY_IDENTITY',
    MYSQL_SSL_CA_FILE: pki.ca.certFile,
  });
  return { env: envFor('ums_migrator'), envFor, server, stop: () => server.stop() };
}
