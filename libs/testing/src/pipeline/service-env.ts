import { mysqlUserOfService } from '@ums/contracts';
import { testBrokers } from '../kafka/test-kafka';
import { testMysqlPassword, testMysqlSettings } from '../mysql/test-database';
import { testRedisEnv } from '../redis/test-redis';

/** A fixed, public test key for SecretBox: never use it outside tests. */
export const TEST_SECRETS_KEYS = 'test:VEVTVCBPTkxZIC0gbm90IGEgc2VjcmV0IC0gMzJieXQ=';

/** The operator key of every test service: public, never use it outside tests. */
export const TEST_OPERATOR_KEY = 'umso_TEST-ONLY-operator-key-not-a-secret-0123456789';

/**
 * MYSQL_USER and MYSQL_PASSWORD of a service's own account (libs/contracts service-grants.ts, as
 * createTestDatabase grants them), or nothing for a service without one (the provider simulator).
 */
export function serviceMysqlEnv(app: string): Record<string, string> {
  const user = mysqlUserOfService(app);
  return user === undefined ? {} : { MYSQL_USER: user, MYSQL_PASSWORD: testMysqlPassword(user) };
}

/**
 * The environment every service process of a test needs: the run's broker with the suite's
 * namespace, the suite's database, the local Redis, and a short consumer session so that a
 * killed process's partitions move on within seconds. The MySQL account is the service's own:
 * startServiceProcess adds it (serviceMysqlEnv) unless the env names one.
 */
export function serviceEnv(database: string, namespace: string): Record<string, string> {
  const mysql = testMysqlSettings(database);
  return {
    KAFKA_BROKERS: testBrokers().join(','),
    KAFKA_NAMESPACE: namespace,
    KAFKA_SESSION_TIMEOUT_MS: '6000',
    MYSQL_HOST: mysql.host,
    MYSQL_PORT: String(mysql.port),
    MYSQL_DATABASE: database,
    ...testRedisEnv(),
    SECRETS_KEYS: TEST_SECRETS_KEYS,
    AUTH_OPERATOR_KEY: TEST_OPERATOR_KEY,
    // Tests send through the provider simulator on loopback; the first entry is a credential's default.
    PROVIDER_SIMULATOR_ENABLED: 'true',
    PROVIDER_ENDPOINTS_SIMULATOR: 'http://127.0.0.1:3005,http://127.0.0.1:*',
  };
}
