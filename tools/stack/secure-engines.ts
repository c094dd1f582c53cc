import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KafkaConfig, type KafkaConnectionOptions, kafkaConnectionOptions, loadConfig } from '@ums/platform';
import {
  createTestPki,
  startSecureKafka,
  startSecureMariadb,
  startSecureRedis,
  type TestMysqlSettings,
} from '@ums/testing';

export interface SecureEngines {
  /** The secured broker's SASL_SSL listener. */
  readonly brokers: string;
  /**
   * Kafka (SASL_SSL, SCRAM-SHA-512), MySQL (TLS required, the server verified; the migrator's login,
   * which each service's own account replaces) and Redis (an ACL user over TLS), for every process.
   */
  readonly env: Readonly<Record<string, string>>;
  /** How a client of this process (the demo's pipeline check) reaches the secured broker. */
  readonly kafka: KafkaConnectionOptions;
  /** The MySQL schema, created with every account granted on it. */
  readonly database: string;
  /** The MariaDB's administrator (root over TLS), for checks beside the services. */
  readonly mysqlAdmin: TestMysqlSettings;
  stop(): Promise<void>;
}

/**
 * The engines of `npm run demo -- --secure`, on loopback with a CA made for the run (in a temporary
 * directory removed by stop()): a Kafka broker whose clients use SASL_SSL with a SCRAM user, a
 * MariaDB that refuses connections without TLS and has one least-privilege account per service, and
 * a Redis that speaks TLS only and admits an ACL user only. Every client verifies the server against
 * the run's CA.
 */
export async function startSecureEngines(say: (line: string) => void): Promise<SecureEngines> {
  const dir = mkdtempSync(join(tmpdir(), 'ums-secure-'));
  const pki = createTestPki({ dir: join(dir, 'pki') });
  const stops: (() => Promise<void>)[] = [async () => rmSync(dir, { recursive: true, force: true })];
  const stop = async (): Promise<void> => {
    for (const each of stops.reverse()) await each().catch(() => undefined);
  };
  try {
    say('starting Kafka with a SASL_SSL listener (SCRAM-SHA-512, the run CA)');
    const kafka = await startSecureKafka({ dir: join(dir, 'kafka'), pki });
    stops.push(() => kafka.stop());
    say('starting MariaDB requiring TLS, with one account per service');
    const mysql = await startSecureMariadb({ dir: join(dir, 'mariadb'), pki });
    stops.push(() => mysql.stop());
    say('starting Redis on TLS only, with an ACL user');
    const redis = await startSecureRedis({ dir: join(dir, 'redis'), pki });
    stops.push(() => redis.stop());
    const database = mysql.env['MYSQL_DATABASE'] ?? 'ums';
    return {
      brokers: kafka.brokers.join(','),
      env: { ...kafka.env, ...mysql.env, ...redis.env },
      kafka: kafkaConnectionOptions(loadConfig(KafkaConfig, kafka.env)),
      database,
      mysqlAdmin: mysql.server.settings(database),
      stop,
    };
  } catch (error: unknown) {
    await stop();
    throw error;
  }
}
