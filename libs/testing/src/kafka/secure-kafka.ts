import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import type { SecureEngine } from '../secure-engine';
import type { TestPki } from '../tls/test-pki';
import { startKafkaBroker, type KafkaBrokerHandle, type KafkaExtraListener } from './kafka-broker';
import { startOAuthTokenEndpoint, type OAuthTokenEndpoint } from './oauth-token-endpoint';

export interface SecureKafkaOptions {
  /** The broker's data directory. */
  readonly dir: string;
  /** Certificates from createTestPki: the broker serves `server`, trusts `ca` for client certificates. */
  readonly pki: TestPki;
  readonly heapMb?: number;
}

/** Users the secure broker knows, with their passwords (random per broker). */
export interface SecureKafkaUsers {
  readonly scram512: { readonly username: string; readonly password: string };
  readonly scram256: { readonly username: string; readonly password: string };
  readonly plain: { readonly username: string; readonly password: string };
}

export interface SecureKafka extends SecureEngine {
  /** The SASL_SSL listener (the one `env` points at). */
  readonly brokers: string[];
  /**
   * host:port of each listener: SASL_SSL (SCRAM-SHA-256/512, PLAIN, OAUTHBEARER), SSL (TLS, no client
   * certificate), MTLS (TLS requiring a client certificate the CA signed), SASL_PLAINTEXT (SCRAM-SHA-512
   * only) and PLAINTEXT (no security; inter-broker traffic).
   */
  readonly listeners: Readonly<Record<SecureKafkaListener, string>>;
  readonly users: SecureKafkaUsers;
  /** A client-credentials token endpoint on loopback whose tokens the broker accepts (OAUTHBEARER). */
  readonly oauth: OAuthTokenEndpoint;
  readonly broker: KafkaBrokerHandle;
}

export type SecureKafkaListener = 'SASL_SSL' | 'SSL' | 'MTLS' | 'SASL_PLAINTEXT' | 'PLAINTEXT';

const LISTENERS: readonly KafkaExtraListener[] = [
  { name: 'SASL_SSL', protocol: 'SASL_SSL' },
  { name: 'SSL', protocol: 'SSL' },
  { name: 'MTLS', protocol: 'SSL' },
  { name: 'SASL_PLAINTEXT', protocol: 'SASL_PLAINTEXT' },
];

/** A Java properties value on one line: PEM newlines become `\n` escapes. */
function inline(pem: string): string {
  return pem.trim().replace(/\r?\n/g, '\\n');
}

const SCRAM = 'org.apache.kafka.common.security.scram.ScramLoginModule required;';

function securityProperties(pki: TestPki, users: SecureKafkaUsers): string {
  const plainJaas = `org.apache.kafka.common.security.plain.PlainLoginModule required user_${users.plain.username}="${users.plain.password}";`;
  // No server callback handler configured: Kafka validates OAUTHBEARER tokens as unsecured JWTs.
  const oauthJaas =
    'org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginModule required unsecuredLoginStringClaim_sub="broker";';
  return `
# TLS (PEM, inline) and SASL of the extra listeners (libs/testing secure-kafka.ts)
ssl.keystore.type=PEM
ssl.keystore.certificate.chain=${inline(pki.server.cert)}
ssl.keystore.key=${inline(pki.server.key)}
ssl.truststore.type=PEM
ssl.truststore.certificates=${inline(pki.ca.cert)}
ssl.client.auth=none
listener.name.mtls.ssl.client.auth=required
sasl.enabled.mechanisms=SCRAM-SHA-256,SCRAM-SHA-512,PLAIN,OAUTHBEARER
listener.name.sasl_ssl.sasl.enabled.mechanisms=SCRAM-SHA-256,SCRAM-SHA-512,PLAIN,OAUTHBEARER
listener.name.sasl_ssl.scram-sha-256.sasl.jaas.config=${SCRAM}
listener.name.sasl_ssl.scram-sha-512.sasl.jaas.config=${SCRAM}
listener.name.sasl_ssl.plain.sasl.jaas.config=${plainJaas}
listener.name.sasl_ssl.oauthbearer.sasl.jaas.config=${oauthJaas}
listener.name.sasl_plaintext.sasl.enabled.mechanisms=SCRAM-SHA-512
listener.name.sasl_plaintext.scram-sha-512.sasl.jaas.config=${SCRAM}
`;
}

function newUsers(): SecureKafkaUsers {
  const secret = (): string => randomBytes(12).toString('hex');
  return {
    scram512: { username: 'ums-scram512', password: secret() },
    scram256: { username: 'ums-scram256', password: secret() },
    plain: { username: 'ums-plain', password: secret() },
  };
}

/**
 * A single-node KRaft broker with a SASL_SSL listener and SCRAM users (stored at format time with
 * `kafka-storage format --add-scram`), plus SSL, mTLS and SASL_PLAINTEXT listeners, PEM certificates
 * from `pki`, and a loopback OAuth token endpoint for OAUTHBEARER. `env` holds the KAFKA_* variables of
 * a SCRAM-SHA-512 client over SASL_SSL with the test CA.
 */
export async function startSecureKafka(options: SecureKafkaOptions): Promise<SecureKafka> {
  const users = newUsers();
  const oauth = await startOAuthTokenEndpoint({ subject: 'ums-oauth' });
  let broker: KafkaBrokerHandle;
  try {
    broker = await startKafkaBroker({
      dataDir: join(options.dir, 'kafka'),
      heapMb: options.heapMb ?? 384,
      extraListeners: LISTENERS,
      extraProperties: securityProperties(options.pki, users),
      formatArgs: [
        '--add-scram',
        `SCRAM-SHA-512=[name=${users.scram512.username},password=${users.scram512.password}]`,
        '--add-scram',
        `SCRAM-SHA-256=[name=${users.scram256.username},password=${users.scram256.password}]`,
      ],
    });
  } catch (error: unknown) {
    await oauth.stop();
    throw error;
  }
  const listeners = { ...broker.listeners, PLAINTEXT: broker.brokers } as Record<SecureKafkaListener, string>;
  return {
    brokers: [listeners.SASL_SSL],
    listeners,
    users,
    oauth,
    broker,
    env: {
      KAFKA_BROKERS: listeners.SASL_SSL,
      KAFKA_SECURITY_PROTOCOL: 'SASL_SSL',
      KAFKA_SSL_CA_FILE: options.pki.ca.certFile,
      KAFKA_SASL_MECHANISM: 'scram-sha-512',
      KAFKA_SASL_USERNAME: users.scram512.username,
      KAFKA_SASL_PASSWORD: users.scram512.password,
    },
    stop: async () => {
      try {
        await broker.stop();
      } finally {
        await oauth.stop();
      }
    },
  };
}
