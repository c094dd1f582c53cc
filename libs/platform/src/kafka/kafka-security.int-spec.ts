import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createTestPki, startSecureKafka, type SecureKafka, type TestPki } from '@ums/testing';
import { Kafka, logLevel } from 'kafkajs';
import { KafkaConfig } from '../config/common.config';
import { ConfigValidationError, loadConfig } from '../config/config-loader';
import { checkKafkaConnection, type KafkaConnectionError } from './kafka-connection-check';
import { kafkaConnectionOptions } from './kafka-security';

jest.setTimeout(120_000);

/**
 * Every supported way to reach a secured broker, against a real one on loopback (SASL_SSL with SCRAM
 * and PLAIN and OAUTHBEARER, TLS with the test CA, mTLS, SASL_PLAINTEXT), and the misconfigurations
 * start-up refuses, each naming the setting to fix.
 */
describe('Kafka TLS and SASL (real broker)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'ums-kafka-sec-'));
  let pki: TestPki;
  let secure: SecureKafka;
  const topic = 'ums.test.kafka-security.v1';

  beforeAll(async () => {
    pki = createTestPki({ dir: join(dir, 'pki') });
    secure = await startSecureKafka({ dir, pki });
    const admin = client(secure.env).admin();
    await admin.connect();
    await admin.createTopics({ topics: [{ topic, numPartitions: 1 }], waitForLeaders: true });
    await admin.disconnect();
  });

  afterAll(async () => {
    await secure?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  const config = (env: Record<string, string>): KafkaConfig => loadConfig(KafkaConfig, env);
  const client = (env: Readonly<Record<string, string>>): Kafka =>
    new Kafka({
      clientId: 'kafka-security-test',
      ...kafkaConnectionOptions(config({ ...env })),
      logLevel: logLevel.NOTHING,
      retry: { retries: 2 },
    });

  /** Start-up's check passes, and a record produced with acks=all lands (offset moves by one). */
  const roundTrip = async (env: Record<string, string>): Promise<void> => {
    const cfg = config(env);
    await expect(checkKafkaConnection(kafkaConnectionOptions(cfg), cfg)).resolves.toBeUndefined();
    const kafka = client(env);
    const admin = kafka.admin();
    const producer = kafka.producer({ idempotent: true, maxInFlightRequests: 1 });
    await admin.connect();
    await producer.connect();
    try {
      const before = Number((await admin.fetchTopicOffsets(topic))[0]?.high);
      await producer.send({ topic, acks: -1, messages: [{ key: 'k', value: env['KAFKA_BROKERS'] ?? '' }] });
      expect(Number((await admin.fetchTopicOffsets(topic))[0]?.high)).toBe(before + 1);
    } finally {
      await producer.disconnect();
      await admin.disconnect();
    }
  };

  const refusal = async (env: Record<string, string>): Promise<KafkaConnectionError> => {
    const cfg = config(env);
    const error = await checkKafkaConnection(kafkaConnectionOptions(cfg), cfg).then(
      () => undefined,
      (e: unknown) => e as KafkaConnectionError,
    );
    if (error === undefined) throw new Error('the connection check passed');
    expect(error.misconfigured).toBe(true);
    for (const value of Object.values(secure.users).map((u) => u.password))
      expect(error.message).not.toContain(value);
    return error;
  };

  const saslSsl = (
    mechanism: string,
    user: { username: string; password: string },
  ): Record<string, string> => ({
    KAFKA_BROKERS: secure.listeners.SASL_SSL,
    KAFKA_SECURITY_PROTOCOL: 'SASL_SSL',
    KAFKA_SSL_CA_FILE: pki.ca.certFile,
    KAFKA_SASL_MECHANISM: mechanism,
    KAFKA_SASL_USERNAME: user.username,
    KAFKA_SASL_PASSWORD: user.password,
  });

  const oauthEnv = (secret = secure.oauth.clientSecret): Record<string, string> => ({
    KAFKA_BROKERS: secure.listeners.SASL_SSL,
    KAFKA_SECURITY_PROTOCOL: 'SASL_SSL',
    KAFKA_SSL_CA_FILE: pki.ca.certFile,
    KAFKA_SASL_MECHANISM: 'oauthbearer',
    KAFKA_SASL_OAUTH_TOKEN_URL: secure.oauth.tokenUrl,
    KAFKA_SASL_OAUTH_CLIENT_ID: secure.oauth.clientId,
    KAFKA_SASL_OAUTH_CLIENT_SECRET: secret,
    KAFKA_SASL_OAUTH_SCOPE: 'kafka',
  });

  it('talks SCRAM-SHA-512 over SASL_SSL with the env startSecureKafka gives, producing and consuming', async () => {
    await roundTrip({ ...secure.env });
    // A consumer group: its coordinator is found and joined over the same listener.
    const consumer = client(secure.env).consumer({ groupId: `g-${Date.now()}`, sessionTimeout: 6_000 });
    await consumer.connect();
    try {
      await consumer.subscribe({ topics: [topic], fromBeginning: true });
      const first = new Promise<string>((resolve) => {
        void consumer.run({ eachMessage: async ({ message }) => resolve(message.value?.toString() ?? '') });
      });
      await expect(first).resolves.toBe(secure.listeners.SASL_SSL);
    } finally {
      await consumer.disconnect();
    }
  });

  it('talks SCRAM-SHA-256 and PLAIN over SASL_SSL', async () => {
    await roundTrip(saslSsl('scram-sha-256', secure.users.scram256));
    await roundTrip(saslSsl('PLAIN', secure.users.plain));
  });

  it('talks OAUTHBEARER with a client-credentials token, fetched once and reused', async () => {
    const before = secure.oauth.issued;
    await roundTrip(oauthEnv());
    // The check and the test's client each build their options, so each fetched one token.
    expect(secure.oauth.issued - before).toBe(2);
  });

  it('talks TLS with the custom CA, and mTLS with a client certificate', async () => {
    await roundTrip({
      KAFKA_BROKERS: secure.listeners.SSL,
      KAFKA_SECURITY_PROTOCOL: 'SSL',
      KAFKA_SSL_CA_FILE: pki.ca.certFile,
    });
    await roundTrip({
      KAFKA_BROKERS: secure.listeners.MTLS,
      KAFKA_SECURITY_PROTOCOL: 'SSL',
      KAFKA_SSL_CA_FILE: pki.ca.certFile,
      KAFKA_SSL_CERT_FILE: pki.client.certFile,
      KAFKA_SSL_KEY_FILE: pki.client.keyFile,
    });
  });

  it('talks mTLS with an encrypted client key and KAFKA_SSL_KEY_PASSWORD', async () => {
    const encrypted = join(dir, 'client-encrypted.key');
    execFileSync('openssl', [
      'pkcs8',
      '-topk8',
      '-v2',
      'aes-256-cbc',
      '-in',
      pki.client.keyFile,
      '-out',
      encrypted,
      '-passout',
      'pass:key-pass',
    ]);
    await roundTrip({
      KAFKA_BROKERS: secure.listeners.MTLS,
      KAFKA_SECURITY_PROTOCOL: 'SSL',
      KAFKA_SSL_CA_FILE: pki.ca.certFile,
      KAFKA_SSL_CERT_FILE: pki.client.certFile,
      KAFKA_SSL_KEY_FILE: encrypted,
      KAFKA_SSL_KEY_PASSWORD: 'key-pass',
    });
    const issues = (env: Record<string, string>): Record<string, string> => {
      try {
        config(env);
        return {};
      } catch (error: unknown) {
        if (!(error instanceof ConfigValidationError)) throw error;
        return Object.fromEntries(error.issues.map((i) => [i.field, i.reason]));
      }
    };
    const mtls = {
      KAFKA_BROKERS: secure.listeners.MTLS,
      KAFKA_SECURITY_PROTOCOL: 'SSL',
      KAFKA_SSL_CERT_FILE: pki.client.certFile,
    };
    expect(issues({ ...mtls, KAFKA_SSL_KEY_FILE: encrypted })).toEqual({
      KAFKA_SSL_KEY_FILE: expect.stringMatching(/encrypted: set KAFKA_SSL_KEY_PASSWORD/),
    });
    expect(issues({ ...mtls, KAFKA_SSL_KEY_FILE: encrypted, KAFKA_SSL_KEY_PASSWORD: 'wrong' })).toEqual({
      KAFKA_SSL_KEY_FILE: expect.stringMatching(/cannot be decrypted with KAFKA_SSL_KEY_PASSWORD/),
    });
    expect(issues({ ...mtls, KAFKA_SSL_KEY_FILE: pki.server.keyFile })).toEqual({
      KAFKA_SSL_KEY_FILE: expect.stringMatching(/not the key of KAFKA_SSL_CERT_FILE/),
    });
    expect(issues({ KAFKA_BROKERS: secure.listeners.SSL, KAFKA_SSL_CA_FILE: pki.ca.certFile })).toEqual({
      KAFKA_SSL_CA_FILE: expect.stringMatching(/KAFKA_SECURITY_PROTOCOL=PLAINTEXT does not use TLS/),
    });
    expect(
      issues({ ...mtls, KAFKA_SSL_CA_FILE: pki.client.keyFile, KAFKA_SSL_KEY_FILE: pki.client.keyFile }),
    ).toEqual({
      KAFKA_SSL_CA_FILE: expect.stringMatching(/holds no PEM certificate/),
    });
  });

  it('talks SCRAM-SHA-512 over SASL_PLAINTEXT', async () => {
    await roundTrip({
      KAFKA_BROKERS: secure.listeners.SASL_PLAINTEXT,
      KAFKA_SECURITY_PROTOCOL: 'SASL_PLAINTEXT',
      KAFKA_SASL_MECHANISM: 'scram-sha-512',
      KAFKA_SASL_USERNAME: secure.users.scram512.username,
      KAFKA_SASL_PASSWORD: secure.users.scram512.password,
    });
  });

  it('refuses a wrong password, naming KAFKA_SASL_PASSWORD', async () => {
    const error = await refusal({ ...secure.env, KAFKA_SASL_PASSWORD: 'not-the-password' });
    expect(error.code).toBe('KAFKA_AUTHENTICATION_FAILED');
    expect(error.message).toMatch(/KAFKA_SASL_PASSWORD/);
    expect(error.message).not.toContain('not-the-password');
  });

  it('refuses a broker certificate the configured CA did not sign, naming KAFKA_SSL_CA_FILE', async () => {
    const error = await refusal({ ...secure.env, KAFKA_SSL_CA_FILE: pki.otherCa.certFile });
    expect(error.code).toBe('KAFKA_TLS_HANDSHAKE_FAILED');
    expect(error.message).toMatch(/KAFKA_SSL_CA_FILE/);
  });

  it('refuses a mechanism the listener does not enable, naming KAFKA_SASL_MECHANISM', async () => {
    const error = await refusal({
      KAFKA_BROKERS: secure.listeners.SASL_PLAINTEXT,
      KAFKA_SECURITY_PROTOCOL: 'SASL_PLAINTEXT',
      KAFKA_SASL_MECHANISM: 'plain',
      KAFKA_SASL_USERNAME: secure.users.plain.username,
      KAFKA_SASL_PASSWORD: secure.users.plain.password,
    });
    expect(error.code).toBe('KAFKA_SASL_MECHANISM_NOT_ENABLED');
    expect(error.message).toMatch(/KAFKA_SASL_MECHANISM/);
  });

  it('refuses a plain connection to the TLS port, naming KAFKA_SECURITY_PROTOCOL', async () => {
    const error = await refusal({ KAFKA_BROKERS: secure.listeners.SSL });
    expect(error.code).toBe('KAFKA_SECURITY_PROTOCOL_MISMATCH');
    expect(error.message).toMatch(/KAFKA_SECURITY_PROTOCOL/);
  });

  it('refuses TLS to the plaintext port, naming KAFKA_SECURITY_PROTOCOL', async () => {
    const error = await refusal({
      KAFKA_BROKERS: secure.listeners.PLAINTEXT,
      KAFKA_SECURITY_PROTOCOL: 'SSL',
      KAFKA_SSL_CA_FILE: pki.ca.certFile,
    });
    expect(error.message).toMatch(/KAFKA_SECURITY_PROTOCOL/);
  });

  it('refuses mTLS without a client certificate, naming KAFKA_SSL_CERT_FILE', async () => {
    const error = await refusal({
      KAFKA_BROKERS: secure.listeners.MTLS,
      KAFKA_SECURITY_PROTOCOL: 'SSL',
      KAFKA_SSL_CA_FILE: pki.ca.certFile,
    });
    expect(error.code).toBe('KAFKA_TLS_HANDSHAKE_FAILED');
    expect(error.message).toMatch(/KAFKA_SSL_CERT_FILE/);
  });

  it('refuses OAuth client credentials the token endpoint refuses, naming them', async () => {
    const error = await refusal(oauthEnv('wrong-secret'));
    expect(error.code).toBe('KAFKA_OAUTH_TOKEN_REFUSED');
    expect(error.message).toMatch(/KAFKA_SASL_OAUTH_CLIENT_SECRET/);
    expect(error.message).not.toContain('wrong-secret');
  });
});
