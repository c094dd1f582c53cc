import { KafkaErrorCode } from '@ums/contracts';
import { KafkaConfig } from '../config/common.config';
import { loadConfig } from '../config/config-loader';
import { describeKafkaFailure, kafkaFailureText } from './kafka-connection-check';
import { OAuthTokenError } from './oauth-client-credentials';

/** An error shaped as kafkajs makes them: name, optional code or protocol type, and a cause. */
function kafkajsError(name: string, message: string, extra: Record<string, unknown> = {}): Error {
  return Object.assign(new Error(message), { name, ...extra });
}

const config = loadConfig(KafkaConfig, {
  KAFKA_BROKERS: 'b-1.example.com:9096',
  KAFKA_SECURITY_PROTOCOL: 'SASL_SSL',
  KAFKA_SASL_MECHANISM: 'scram-sha-512',
  KAFKA_SASL_USERNAME: 'ums-sender',
  KAFKA_SASL_PASSWORD: 'pw',
});

describe('describeKafkaFailure', () => {
  it('names the credentials when SASL authentication is refused, through kafkajs retry wrappers', () => {
    const auth = kafkajsError('KafkaJSSASLAuthenticationError', 'SASL SCRAM SHA512 authentication failed');
    const wrapped = kafkajsError('KafkaJSNumberOfRetriesExceeded', 'retries', { cause: auth });
    const failure = describeKafkaFailure(wrapped, config);
    expect([failure.code, failure.misconfigured, failure.settings]).toEqual([
      'KAFKA_AUTHENTICATION_FAILED',
      true,
      ['KAFKA_SASL_USERNAME', 'KAFKA_SASL_PASSWORD'],
    ]);
    expect(kafkaFailureText(wrapped, config)).toMatch(
      /SCRAM-SHA-512 authentication; check KAFKA_SASL_USERNAME/,
    );
  });

  it('names the CA file for an untrusted certificate and the mechanism the broker lacks', () => {
    const tls = kafkajsError(
      'KafkaJSConnectionError',
      'Connection error: self-signed certificate in certificate chain',
      {
        code: 'SELF_SIGNED_CERT_IN_CHAIN',
      },
    );
    expect(describeKafkaFailure(tls, config).settings).toEqual(['KAFKA_SSL_CA_FILE']);
    const mechanism = kafkajsError('KafkaJSProtocolError', 'Unsupported SASL mechanism', {
      type: 'UNSUPPORTED_SASL_MECHANISM',
    });
    expect(describeKafkaFailure(mechanism, config).code).toBe('KAFKA_SASL_MECHANISM_NOT_ENABLED');
  });

  it('reads a dropped connection as the wrong listener on first contact only', () => {
    const closed = kafkajsError('KafkaJSConnectionClosedError', 'Closed connection');
    expect(describeKafkaFailure(closed, config, true)).toMatchObject({
      code: 'KAFKA_SECURITY_PROTOCOL_MISMATCH',
      misconfigured: true,
    });
    // Later, a broker restarting drops connections: readiness keeps kafkajs' own words.
    expect(describeKafkaFailure(closed, config)).toMatchObject({
      code: 'KAFKA_UNREACHABLE',
      misconfigured: false,
    });
    expect(kafkaFailureText(closed, config)).toBe('Closed connection');
  });

  it("passes the token endpoint's refusal on with the settings it names", () => {
    const refused = new OAuthTokenError(KafkaErrorCode.OauthTokenRefused, 'refused (invalid_client)', {
      setting: 'KAFKA_SASL_OAUTH_CLIENT_ID and KAFKA_SASL_OAUTH_CLIENT_SECRET',
    });
    expect(describeKafkaFailure(new Error('outer', { cause: refused }), config)).toMatchObject({
      code: KafkaErrorCode.OauthTokenRefused,
      settings: ['KAFKA_SASL_OAUTH_CLIENT_ID', 'KAFKA_SASL_OAUTH_CLIENT_SECRET'],
      misconfigured: true,
    });
  });

  it('leaves a refused or silent broker to the retries, naming KAFKA_BROKERS', () => {
    const refused = kafkajsError('KafkaJSConnectionError', 'Connection error: connect ECONNREFUSED', {
      code: 'ECONNREFUSED',
    });
    expect(describeKafkaFailure(refused, config, true)).toMatchObject({
      code: 'KAFKA_UNREACHABLE',
      misconfigured: false,
      settings: ['KAFKA_BROKERS'],
    });
  });
});
