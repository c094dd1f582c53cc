import { kafkaConnectionOptions } from '../kafka/kafka-security';
import { KafkaConfig } from './common.config';
import { ConfigValidationError, loadConfig } from './config-loader';

const BROKERS = { KAFKA_BROKERS: 'kafka-1.example.com:9096' };

/** The issues config validation reports for these variables, by variable name. */
function issues(env: Record<string, string>): Record<string, string> {
  try {
    loadConfig(KafkaConfig, { ...BROKERS, ...env });
    return {};
  } catch (error: unknown) {
    if (!(error instanceof ConfigValidationError)) throw error;
    return Object.fromEntries(error.issues.map((i) => [i.field, i.reason]));
  }
}

describe('KafkaConfig security settings', () => {
  it('defaults to PLAINTEXT without TLS or SASL', () => {
    const config = loadConfig(KafkaConfig, BROKERS);
    expect(config.KAFKA_SECURITY_PROTOCOL).toBe('PLAINTEXT');
    expect(kafkaConnectionOptions(config)).toEqual({ brokers: ['kafka-1.example.com:9096'] });
  });

  it('builds SASL_SSL with SCRAM and system CAs, whatever the case of protocol and mechanism', () => {
    const config = loadConfig(KafkaConfig, {
      ...BROKERS,
      KAFKA_SECURITY_PROTOCOL: 'sasl_ssl',
      KAFKA_SASL_MECHANISM: 'SCRAM-SHA-512',
      KAFKA_SASL_USERNAME: 'ums-sender',
      KAFKA_SASL_PASSWORD: 's3cret',
      KAFKA_SSL_CA_FILE: '',
    });
    expect(kafkaConnectionOptions(config)).toEqual({
      brokers: ['kafka-1.example.com:9096'],
      ssl: true,
      sasl: { mechanism: 'scram-sha-512', username: 'ums-sender', password: 's3cret' },
    });
  });

  it('builds OAUTHBEARER with a token provider', () => {
    const config = loadConfig(KafkaConfig, {
      ...BROKERS,
      KAFKA_SECURITY_PROTOCOL: 'SASL_SSL',
      KAFKA_SASL_MECHANISM: 'oauthbearer',
      KAFKA_SASL_OAUTH_TOKEN_URL: 'https://login.example.com/oauth2/token',
      KAFKA_SASL_OAUTH_CLIENT_ID: 'ums',
      KAFKA_SASL_OAUTH_CLIENT_SECRET: 'client-s3cret',
    });
    const { sasl } = kafkaConnectionOptions(config);
    expect(sasl?.mechanism).toBe('oauthbearer');
    expect(sasl !== undefined && 'oauthBearerProvider' in sasl).toBe(true);
  });

  it('requires a mechanism with a SASL protocol, and refuses one without', () => {
    expect(issues({ KAFKA_SECURITY_PROTOCOL: 'SASL_SSL' })).toEqual({
      KAFKA_SASL_MECHANISM: expect.stringMatching(/required with KAFKA_SECURITY_PROTOCOL=SASL_SSL/),
    });
    expect(
      issues({ KAFKA_SASL_MECHANISM: 'plain', KAFKA_SASL_USERNAME: 'u', KAFKA_SASL_PASSWORD: 'p' }),
    ).toEqual({ KAFKA_SASL_MECHANISM: expect.stringMatching(/PLAINTEXT does not use SASL/) });
    expect(issues({ KAFKA_SECURITY_PROTOCOL: 'SASL_SSL', KAFKA_SASL_MECHANISM: 'gssapi' })).toEqual({
      KAFKA_SASL_MECHANISM: expect.stringMatching(/must be one of/),
    });
    expect(issues({ KAFKA_SECURITY_PROTOCOL: 'TLS' })).toEqual({
      KAFKA_SECURITY_PROTOCOL: expect.stringMatching(/must be one of PLAINTEXT, SSL/),
    });
  });

  it('requires user and password for SCRAM and PLAIN, and never repeats a secret', () => {
    const scram = { KAFKA_SECURITY_PROTOCOL: 'SASL_SSL', KAFKA_SASL_MECHANISM: 'scram-sha-256' };
    expect(issues({ ...scram, KAFKA_SASL_USERNAME: 'u' })).toEqual({
      KAFKA_SASL_PASSWORD: expect.stringMatching(/required with KAFKA_SASL_MECHANISM=scram-sha-256/),
    });
    const stray = issues({ KAFKA_SASL_PASSWORD: 'hunter2-secret' });
    expect(stray).toEqual({ KAFKA_SASL_PASSWORD: expect.stringMatching(/without KAFKA_SASL_MECHANISM/) });
    expect(JSON.stringify(stray)).not.toContain('hunter2');
  });

  it('requires the OAuth client settings for oauthbearer and refuses them otherwise', () => {
    const oauth = { KAFKA_SECURITY_PROTOCOL: 'SASL_SSL', KAFKA_SASL_MECHANISM: 'oauthbearer' };
    expect(
      Object.keys(issues({ ...oauth, KAFKA_SASL_USERNAME: 'u', KAFKA_SASL_PASSWORD: 'p' })).sort(),
    ).toEqual([
      'KAFKA_SASL_OAUTH_CLIENT_ID',
      'KAFKA_SASL_OAUTH_CLIENT_SECRET',
      'KAFKA_SASL_OAUTH_TOKEN_URL',
      'KAFKA_SASL_PASSWORD',
      'KAFKA_SASL_USERNAME',
    ]);
    const complete = { ...oauth, KAFKA_SASL_OAUTH_CLIENT_ID: 'c', KAFKA_SASL_OAUTH_CLIENT_SECRET: 's' };
    expect(issues({ ...complete, KAFKA_SASL_OAUTH_TOKEN_URL: 'http://idp.example.com/token' })).toEqual({
      KAFKA_SASL_OAUTH_TOKEN_URL: expect.stringMatching(/https:\/\/ URL/),
    });
    expect(issues({ ...complete, KAFKA_SASL_OAUTH_TOKEN_URL: 'http://127.0.0.1:8080/token' })).toEqual({});
    expect(issues({ KAFKA_SASL_OAUTH_SCOPE: 'kafka' })).toEqual({
      KAFKA_SASL_OAUTH_SCOPE: expect.stringMatching(/without KAFKA_SASL_MECHANISM/),
    });
  });

  it('refuses half an mTLS pair, a key password without a key and an unreadable CA file', () => {
    const tls = { KAFKA_SECURITY_PROTOCOL: 'SSL' };
    expect(issues({ ...tls, KAFKA_SSL_CERT_FILE: '/nonexistent/client.crt' })).toEqual({
      KAFKA_SSL_CERT_FILE: expect.stringMatching(/without KAFKA_SSL_KEY_FILE/),
    });
    expect(issues({ ...tls, KAFKA_SSL_KEY_FILE: '/nonexistent/client.key' })).toEqual({
      KAFKA_SSL_KEY_FILE: expect.stringMatching(/without KAFKA_SSL_CERT_FILE/),
    });
    expect(issues({ ...tls, KAFKA_SSL_KEY_PASSWORD: 'p' })).toEqual({
      KAFKA_SSL_KEY_PASSWORD: expect.stringMatching(/without KAFKA_SSL_KEY_FILE/),
    });
    expect(issues({ ...tls, KAFKA_SSL_CA_FILE: '/nonexistent/ca.crt' })).toEqual({
      KAFKA_SSL_CA_FILE: expect.stringMatching(/cannot be read \(ENOENT\): \/nonexistent\/ca\.crt/),
    });
  });
});
