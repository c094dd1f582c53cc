import { X509Certificate, createPrivateKey } from 'node:crypto';
import { Transform } from 'class-transformer';
import { ValidateBy } from 'class-validator';
import { holdsPem, pemFileProblem, readPemFile } from './pem-file.check';

export const KAFKA_SECURITY_PROTOCOLS = ['PLAINTEXT', 'SSL', 'SASL_SSL', 'SASL_PLAINTEXT'] as const;
export type KafkaSecurityProtocol = (typeof KAFKA_SECURITY_PROTOCOLS)[number];

export const KAFKA_SASL_MECHANISMS = ['scram-sha-256', 'scram-sha-512', 'plain', 'oauthbearer'] as const;
export type KafkaSaslMechanism = (typeof KAFKA_SASL_MECHANISMS)[number];

/** The Kafka security variables as the rules below read them (KafkaConfig has these properties). */
export interface KafkaSecuritySettings {
  readonly KAFKA_SECURITY_PROTOCOL: string;
  readonly KAFKA_SSL_CA_FILE?: string;
  readonly KAFKA_SSL_CERT_FILE?: string;
  readonly KAFKA_SSL_KEY_FILE?: string;
  readonly KAFKA_SSL_KEY_PASSWORD?: string;
  readonly KAFKA_SASL_MECHANISM?: string;
  readonly KAFKA_SASL_USERNAME?: string;
  readonly KAFKA_SASL_PASSWORD?: string;
  readonly KAFKA_SASL_OAUTH_TOKEN_URL?: string;
  readonly KAFKA_SASL_OAUTH_CLIENT_ID?: string;
  readonly KAFKA_SASL_OAUTH_CLIENT_SECRET?: string;
  readonly KAFKA_SASL_OAUTH_SCOPE?: string;
}

/** A rule reads the value and the whole settings object; it returns why the value is refused, if it is. */
type Rule = (value: unknown, settings: KafkaSecuritySettings) => string | undefined;

/**
 * One property's rule: the message names the property and never carries its value (some are secrets).
 * Runs on unset values too (no @IsOptional), so "required when" rules live on the property they name.
 */
export function KafkaRule(rule: Rule): PropertyDecorator {
  return ValidateBy({
    name: 'kafkaSecurity',
    validator: {
      validate: (value: unknown, args) => rule(value, args?.object as KafkaSecuritySettings) === undefined,
      defaultMessage: (args) =>
        `${args?.property ?? 'value'} ${rule(args?.value, args?.object as KafkaSecuritySettings) ?? 'is invalid'}`,
    },
  });
}

/** Unset and empty are the same: an empty variable (`KAFKA_SSL_CA_FILE=`) means "not configured". */
export const EmptyAsUnset = (): PropertyDecorator =>
  Transform(({ value }: { value: unknown }) =>
    typeof value === 'string' && value.trim() === '' ? undefined : value,
  );

export const UpperCase = (): PropertyDecorator =>
  Transform(({ value }: { value: unknown }) =>
    typeof value === 'string' ? value.trim().toUpperCase() : value,
  );

export const LowerCase = (): PropertyDecorator =>
  Transform(({ value }: { value: unknown }) =>
    typeof value === 'string' ? value.trim().toLowerCase() : value,
  );

export function usesTls(protocol: string): boolean {
  return protocol === 'SSL' || protocol === 'SASL_SSL';
}

export function usesSasl(protocol: string): boolean {
  return protocol === 'SASL_SSL' || protocol === 'SASL_PLAINTEXT';
}

function notTls(s: KafkaSecuritySettings): string | undefined {
  return usesTls(s.KAFKA_SECURITY_PROTOCOL)
    ? undefined
    : `is set but KAFKA_SECURITY_PROTOCOL=${s.KAFKA_SECURITY_PROTOCOL} does not use TLS (SSL or SASL_SSL do)`;
}

/** KAFKA_SSL_CA_FILE: a readable PEM file of one or more certificates. */
export const caFileRule: Rule = (value, s) => {
  if (value === undefined) return undefined;
  return pemFileProblem(value, 'CERTIFICATE') ?? notTls(s);
};

/** KAFKA_SSL_CERT_FILE: the client certificate for mTLS, only with its key. */
export const certFileRule: Rule = (value, s) => {
  if (value === undefined) return undefined;
  if (s.KAFKA_SSL_KEY_FILE === undefined) return 'is set without KAFKA_SSL_KEY_FILE (mTLS needs both)';
  return pemFileProblem(value, 'CERTIFICATE') ?? notTls(s);
};

/** KAFKA_SSL_KEY_FILE: the client key, decryptable with KAFKA_SSL_KEY_PASSWORD and matching the certificate. */
export const keyFileRule: Rule = (value, s) => {
  if (value === undefined) return undefined;
  if (typeof value !== 'string') return 'must be a file path';
  if (s.KAFKA_SSL_CERT_FILE === undefined) return 'is set without KAFKA_SSL_CERT_FILE (mTLS needs both)';
  const file = readPemFile(value);
  if ('problem' in file) return file.problem;
  if (!holdsPem(file.text, 'PRIVATE KEY')) return `holds no PEM private key: ${value}`;
  if (/ENCRYPTED PRIVATE KEY/.test(file.text) && s.KAFKA_SSL_KEY_PASSWORD === undefined)
    return 'is encrypted: set KAFKA_SSL_KEY_PASSWORD';
  let key;
  try {
    key = createPrivateKey({ key: file.text, passphrase: s.KAFKA_SSL_KEY_PASSWORD });
  } catch {
    return 'cannot be decrypted with KAFKA_SSL_KEY_PASSWORD (or is not a key)';
  }
  const cert = readPemFile(s.KAFKA_SSL_CERT_FILE);
  if ('text' in cert && holdsPem(cert.text, 'CERTIFICATE')) {
    try {
      if (!new X509Certificate(cert.text).checkPrivateKey(key))
        return 'is not the key of KAFKA_SSL_CERT_FILE';
    } catch {
      return undefined; // KAFKA_SSL_CERT_FILE's own rule reports an unparsable certificate
    }
  }
  return notTls(s);
};

export const keyPasswordRule: Rule = (value, s) =>
  value !== undefined && s.KAFKA_SSL_KEY_FILE === undefined ? 'is set without KAFKA_SSL_KEY_FILE' : undefined;

export const protocolRule: Rule = (value) =>
  typeof value === 'string' && (KAFKA_SECURITY_PROTOCOLS as readonly string[]).includes(value)
    ? undefined
    : `must be one of ${KAFKA_SECURITY_PROTOCOLS.join(', ')}`;

export const mechanismRule: Rule = (value, s) => {
  const protocol = s.KAFKA_SECURITY_PROTOCOL;
  if (value === undefined)
    return usesSasl(protocol) ? `is required with KAFKA_SECURITY_PROTOCOL=${protocol}` : undefined;
  if (typeof value !== 'string' || !(KAFKA_SASL_MECHANISMS as readonly string[]).includes(value))
    return `must be one of ${KAFKA_SASL_MECHANISMS.join(', ')}`;
  return usesSasl(protocol)
    ? undefined
    : `is set but KAFKA_SECURITY_PROTOCOL=${protocol} does not use SASL (SASL_SSL or SASL_PLAINTEXT do)`;
};

function passwordMechanism(s: KafkaSecuritySettings): boolean {
  const m = s.KAFKA_SASL_MECHANISM;
  return m === 'plain' || m === 'scram-sha-256' || m === 'scram-sha-512';
}

function mechanismLabel(s: KafkaSecuritySettings): string {
  return s.KAFKA_SASL_MECHANISM === undefined
    ? 'is set without KAFKA_SASL_MECHANISM'
    : `is set but KAFKA_SASL_MECHANISM=${s.KAFKA_SASL_MECHANISM} does not use it`;
}

/** KAFKA_SASL_USERNAME and KAFKA_SASL_PASSWORD: required by plain and SCRAM, refused otherwise. */
export const saslCredentialRule: Rule = (value, s) => {
  if (!passwordMechanism(s)) return value === undefined ? undefined : mechanismLabel(s);
  if (value === undefined) return `is required with KAFKA_SASL_MECHANISM=${s.KAFKA_SASL_MECHANISM}`;
  return typeof value === 'string' ? undefined : 'must be a string';
};

/** KAFKA_SASL_OAUTH_CLIENT_ID and _CLIENT_SECRET: required by oauthbearer, refused otherwise. */
export const oauthRequiredRule: Rule = (value, s) => {
  if (s.KAFKA_SASL_MECHANISM !== 'oauthbearer') return value === undefined ? undefined : mechanismLabel(s);
  if (value === undefined) return 'is required with KAFKA_SASL_MECHANISM=oauthbearer';
  return typeof value === 'string' ? undefined : 'must be a string';
};

export const oauthScopeRule: Rule = (value, s) =>
  value !== undefined && s.KAFKA_SASL_MECHANISM !== 'oauthbearer' ? mechanismLabel(s) : undefined;

const LOOPBACK = new Set(['localhost', '127.0.0.1', '[::1]']);

/** The client-credentials token endpoint: https, or http on a loopback host (tests, sidecars). */
export const oauthTokenUrlRule: Rule = (value, s) => {
  const required = oauthRequiredRule(value, s);
  if (required !== undefined || value === undefined) return required;
  let url: URL;
  try {
    url = new URL(String(value));
  } catch {
    return 'must be a URL';
  }
  if (url.protocol === 'https:') return undefined;
  if (url.protocol === 'http:' && LOOPBACK.has(url.hostname)) return undefined;
  return 'must be an https:// URL (http:// only on a loopback host)';
};
