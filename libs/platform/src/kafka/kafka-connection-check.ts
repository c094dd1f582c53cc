import { Kafka, logLevel } from 'kafkajs';
import { KafkaErrorCode } from '@ums/contracts';
import type { KafkaConfig } from '../config/common.config';
import { usesSasl, usesTls } from '../config/kafka-security.rules';
import { CodedError } from '../errors/coded-error';
import type { KafkaConnectionOptions } from './kafka-security';
import { OAuthTokenError } from './oauth-client-credentials';

/**
 * Why a connection to Kafka failed, in terms of the settings: `misconfigured` failures (TLS
 * verification, authentication, a mechanism or protocol the listener does not speak) do not heal by
 * retrying, so start-up refuses them; an unreachable broker may just be starting.
 */
export class KafkaConnectionError extends CodedError {
  constructor(
    code: KafkaErrorCode,
    message: string,
    readonly settings: readonly string[],
    readonly misconfigured: boolean,
    cause: unknown,
  ) {
    super(code, message, { settings, dependency: 'kafka' }, { cause });
  }
}

interface Clue {
  readonly names: string[];
  readonly codes: string[];
  readonly types: string[];
  readonly messages: string[];
}

/** Names, codes, protocol error types and messages along the error's cause chain. */
function clues(error: unknown): Clue {
  const found: Clue = { names: [], codes: [], types: [], messages: [] };
  let current: unknown = error;
  for (let depth = 0; depth < 8 && typeof current === 'object' && current !== null; depth++) {
    const e = current as {
      name?: unknown;
      code?: unknown;
      type?: unknown;
      message?: unknown;
      cause?: unknown;
    };
    if (typeof e.name === 'string') found.names.push(e.name);
    if (typeof e.code === 'string') found.codes.push(e.code);
    if (typeof e.type === 'string') found.types.push(e.type);
    if (typeof e.message === 'string') found.messages.push(e.message);
    current = e.cause;
  }
  return found;
}

/** Node's codes for a certificate the client could not verify against its CAs. */
const CERT_VERIFY = new Set([
  'SELF_SIGNED_CERT_IN_CHAIN',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'CERT_UNTRUSTED',
  'CERT_SIGNATURE_FAILURE',
  'CERT_HAS_EXPIRED',
  'CERT_NOT_YET_VALID',
  'CERT_REVOKED',
]);

interface Verdict {
  readonly code: KafkaErrorCode;
  readonly message: string;
  readonly settings: string[];
  readonly misconfigured: boolean;
}

/** The token endpoint's refusal (OAuthTokenError, thrown by the token provider inside kafkajs). */
function oauthVerdict(error: unknown): Verdict | undefined {
  let current: unknown = error;
  for (let depth = 0; depth < 8 && typeof current === 'object' && current !== null; depth++) {
    if (current instanceof OAuthTokenError) {
      const setting = current.details?.['setting'];
      return {
        code: current.code,
        message: current.message,
        settings: typeof setting === 'string' ? setting.split(' and ') : ['KAFKA_SASL_OAUTH_TOKEN_URL'],
        misconfigured: current.code !== KafkaErrorCode.OauthTokenUnreachable,
      };
    }
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}

function tlsVerdict(c: Clue, config: KafkaConfig, firstContact: boolean): Verdict | undefined {
  const code = c.codes.find((x) => CERT_VERIFY.has(x));
  if (code !== undefined)
    return {
      code: KafkaErrorCode.TlsHandshakeFailed,
      message: `TLS handshake with Kafka failed: the broker's certificate is not trusted (${code}); check KAFKA_SSL_CA_FILE${config.KAFKA_SSL_CA_FILE === undefined ? ' (unset: system CAs)' : ''}`,
      settings: ['KAFKA_SSL_CA_FILE'],
      misconfigured: true,
    };
  if (c.codes.includes('ERR_TLS_CERT_ALTNAME_INVALID'))
    return {
      code: KafkaErrorCode.TlsHandshakeFailed,
      message:
        "TLS handshake with Kafka failed: the broker's certificate does not name the host; check KAFKA_BROKERS",
      settings: ['KAFKA_BROKERS'],
      misconfigured: true,
    };
  const text = c.messages.join(' | ');
  if (/alert (certificate required|bad certificate|unknown ca|handshake failure)/i.test(text))
    return {
      code: KafkaErrorCode.TlsHandshakeFailed,
      message: `TLS handshake with Kafka failed: the broker refused the client certificate (${/alert [a-z ]+/i.exec(text)?.[0] ?? 'alert'}); check KAFKA_SSL_CERT_FILE and KAFKA_SSL_KEY_FILE`,
      settings: ['KAFKA_SSL_CERT_FILE', 'KAFKA_SSL_KEY_FILE'],
      misconfigured: true,
    };
  const dropped = firstContact && /secure TLS connection/i.test(text);
  if (
    usesTls(config.KAFKA_SECURITY_PROTOCOL) &&
    (c.codes.some((x) => x.startsWith('ERR_SSL_')) || /wrong version number/i.test(text) || dropped)
  )
    return {
      code: KafkaErrorCode.TlsHandshakeFailed,
      message: `TLS handshake with Kafka failed (${c.codes.find((x) => x.startsWith('ERR_SSL_')) ?? 'connection closed during the handshake'}): is the port a TLS listener? Check KAFKA_SECURITY_PROTOCOL=${config.KAFKA_SECURITY_PROTOCOL} and KAFKA_BROKERS`,
      settings: ['KAFKA_SECURITY_PROTOCOL', 'KAFKA_BROKERS'],
      misconfigured: true,
    };
  return undefined;
}

function saslVerdict(c: Clue, config: KafkaConfig): Verdict | undefined {
  const mechanism = (config.KAFKA_SASL_MECHANISM ?? 'none').toUpperCase();
  const text = c.messages.join(' | ');
  if (c.types.includes('UNSUPPORTED_SASL_MECHANISM') || /mechanism is not supported/i.test(text))
    return {
      code: KafkaErrorCode.SaslMechanismNotEnabled,
      message: `Kafka does not enable SASL mechanism ${mechanism} on this listener; check KAFKA_SASL_MECHANISM`,
      settings: ['KAFKA_SASL_MECHANISM'],
      misconfigured: true,
    };
  if (c.types.includes('ILLEGAL_SASL_STATE'))
    return {
      code: KafkaErrorCode.SecurityProtocolMismatch,
      message: `Kafka refused the SASL handshake: the listener does not use SASL; check KAFKA_SECURITY_PROTOCOL=${config.KAFKA_SECURITY_PROTOCOL}`,
      settings: ['KAFKA_SECURITY_PROTOCOL'],
      misconfigured: true,
    };
  if (c.names.includes('KafkaJSSASLAuthenticationError') || c.types.includes('SASL_AUTHENTICATION_FAILED')) {
    const settings =
      config.KAFKA_SASL_MECHANISM === 'oauthbearer'
        ? ['KAFKA_SASL_OAUTH_CLIENT_ID', 'KAFKA_SASL_OAUTH_CLIENT_SECRET', 'KAFKA_SASL_OAUTH_SCOPE']
        : ['KAFKA_SASL_USERNAME', 'KAFKA_SASL_PASSWORD'];
    return {
      code: KafkaErrorCode.AuthenticationFailed,
      message: `Kafka refused SASL ${mechanism} authentication; check ${settings.join(', ')}`,
      settings,
      misconfigured: true,
    };
  }
  return undefined;
}

/**
 * A first connection the broker dropped before any reply: the wrong kind of listener. Later on, a
 * dropped connection is a broker restarting, and says nothing about the settings.
 */
function protocolVerdict(c: Clue, config: KafkaConfig, firstContact: boolean): Verdict | undefined {
  const closed =
    c.names.includes('KafkaJSConnectionClosedError') ||
    c.codes.includes('ECONNRESET') ||
    c.codes.includes('EPIPE');
  if (!firstContact || !closed) return undefined;
  const protocol = config.KAFKA_SECURITY_PROTOCOL;
  const hint = usesTls(protocol)
    ? 'a SASL listener needs SASL_SSL'
    : usesSasl(protocol)
      ? 'a TLS listener needs SASL_SSL'
      : 'a TLS or SASL listener needs SSL, SASL_SSL or SASL_PLAINTEXT';
  return {
    code: KafkaErrorCode.SecurityProtocolMismatch,
    message: `Kafka closed the connection before answering (${hint}); check KAFKA_SECURITY_PROTOCOL=${protocol} against the listener of KAFKA_BROKERS`,
    settings: ['KAFKA_SECURITY_PROTOCOL'],
    misconfigured: true,
  };
}

/**
 * Turns a kafkajs connection failure into an error naming the setting to check. Messages carry no
 * secret: variable names, the mechanism and protocol, Node's TLS codes. `firstContact`: the error is
 * the answer to a first connection attempt (start-up's check), where a dropped connection means the
 * listener speaks another protocol.
 */
export function describeKafkaFailure(
  error: unknown,
  config: KafkaConfig,
  firstContact = false,
): KafkaConnectionError {
  if (error instanceof KafkaConnectionError) return error;
  const c = clues(error);
  const verdict: Verdict = oauthVerdict(error) ??
    tlsVerdict(c, config, firstContact) ??
    saslVerdict(c, config) ??
    protocolVerdict(c, config, firstContact) ?? {
      code: KafkaErrorCode.Unreachable,
      message: `Kafka at KAFKA_BROKERS (${config.KAFKA_BROKERS.join(',')}) did not answer: ${c.codes[0] ?? c.messages[0] ?? 'no reason given'}`,
      settings: ['KAFKA_BROKERS'],
      misconfigured: false,
    };
  return new KafkaConnectionError(
    verdict.code,
    verdict.message,
    verdict.settings,
    verdict.misconfigured,
    error,
  );
}

/**
 * What readiness says about a Kafka failure: the setting to check when the settings are wrong (an
 * authentication refused, a certificate not trusted), else the client's own message.
 */
export function kafkaFailureText(error: unknown, config: KafkaConfig): string {
  const failure = describeKafkaFailure(error, config);
  if (failure.misconfigured) return failure.message;
  return error instanceof Error ? error.message : String(error);
}

/**
 * One connection attempt with the service's settings, made at start-up before the producer and
 * consumers connect (they retry for a while, which would hide a wrong password behind a long wait).
 * Throws a KafkaConnectionError naming the setting when the settings are wrong; returns the failure
 * (unreachable: the broker may be starting, the clients' own retries cover that) or undefined.
 */
export async function checkKafkaConnection(
  connection: KafkaConnectionOptions,
  config: KafkaConfig,
  timeoutMs = 10_000,
): Promise<KafkaConnectionError | undefined> {
  const kafka = new Kafka({
    ...connection,
    clientId: 'ums-connection-check',
    logLevel: logLevel.NOTHING,
    connectionTimeout: 5_000,
    authenticationTimeout: timeoutMs,
    requestTimeout: timeoutMs,
    retry: { retries: 0 },
  });
  const admin = kafka.admin({ retry: { retries: 0 } });
  try {
    await admin.connect();
    await admin.describeCluster();
    return undefined;
  } catch (error: unknown) {
    const failure = describeKafkaFailure(error, config, true);
    if (failure.misconfigured) throw failure;
    return failure;
  } finally {
    await admin.disconnect().catch(() => undefined);
  }
}
