import { readFileSync } from 'node:fs';
import type { ConnectionOptions } from 'node:tls';
import type { SASLOptions } from 'kafkajs';
import { KafkaErrorCode } from '@ums/contracts';
import type { KafkaConfig } from '../config/common.config';
import { CodedError } from '../errors/coded-error';
import { usesSasl, usesTls } from '../config/kafka-security.rules';
import { OAuthClientCredentials } from './oauth-client-credentials';

/** What every kafkajs client of the platform needs to reach the cluster: brokers, TLS and SASL. */
export interface KafkaConnectionOptions {
  readonly brokers: string[];
  readonly ssl?: ConnectionOptions | boolean;
  readonly sasl?: SASLOptions;
}

/**
 * The one builder of Kafka connection settings, from the validated KafkaConfig: services (KafkaModule),
 * create-topics, benches and the stack tools spread it into `new Kafka({ clientId, ...this })`, so a
 * security setting works everywhere or nowhere. Files are read here, once; the OAuth token is fetched
 * on the first connection and renewed before it expires.
 */
export function kafkaConnectionOptions(config: KafkaConfig): KafkaConnectionOptions {
  return {
    brokers: [...config.KAFKA_BROKERS],
    ...(usesTls(config.KAFKA_SECURITY_PROTOCOL) ? { ssl: tlsOptions(config) } : {}),
    ...(usesSasl(config.KAFKA_SECURITY_PROTOCOL) ? { sasl: saslOptions(config) } : {}),
  };
}

/** `true` (system CAs, no client certificate) or node TLS options with the configured CA and mTLS pair. */
function tlsOptions(config: KafkaConfig): ConnectionOptions | true {
  const { KAFKA_SSL_CA_FILE: ca, KAFKA_SSL_CERT_FILE: cert, KAFKA_SSL_KEY_FILE: key } = config;
  if (ca === undefined && cert === undefined) return true;
  return {
    // A CA given replaces the system ones: only brokers it signed are trusted.
    ...(ca !== undefined ? { ca: readFileSync(ca, 'utf8') } : {}),
    ...(cert !== undefined && key !== undefined
      ? { cert: readFileSync(cert, 'utf8'), key: readFileSync(key, 'utf8') }
      : {}),
    ...(config.KAFKA_SSL_KEY_PASSWORD !== undefined ? { passphrase: config.KAFKA_SSL_KEY_PASSWORD } : {}),
  };
}

function saslOptions(config: KafkaConfig): SASLOptions {
  const mechanism = config.KAFKA_SASL_MECHANISM;
  if (mechanism === 'oauthbearer') {
    const credentials = new OAuthClientCredentials({
      tokenUrl: required(config.KAFKA_SASL_OAUTH_TOKEN_URL),
      clientId: required(config.KAFKA_SASL_OAUTH_CLIENT_ID),
      clientSecret: required(config.KAFKA_SASL_OAUTH_CLIENT_SECRET),
      scope: config.KAFKA_SASL_OAUTH_SCOPE,
    });
    return { mechanism, oauthBearerProvider: () => credentials.token() };
  }
  if (mechanism === 'plain' || mechanism === 'scram-sha-256' || mechanism === 'scram-sha-512') {
    return {
      mechanism,
      username: required(config.KAFKA_SASL_USERNAME),
      password: required(config.KAFKA_SASL_PASSWORD),
    };
  }
  // Config validation refuses a SASL protocol without a known mechanism: a config built around it.
  throw new CodedError(KafkaErrorCode.ConfigUnvalidated, 'KAFKA_SASL_MECHANISM is not a supported mechanism');
}

function required(value: string | undefined): string {
  // Config validation made these present for the configured mechanism.
  if (value === undefined)
    throw new CodedError(KafkaErrorCode.ConfigUnvalidated, 'A SASL setting validated as required is missing');
  return value;
}
