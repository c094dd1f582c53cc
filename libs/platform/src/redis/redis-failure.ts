import { RedisErrorCode } from '@ums/contracts';
import { CodedError } from '../errors/coded-error';

/** Why Redis could not be used, and the setting to look at. */
export interface RedisFailure {
  readonly code: Exclude<RedisErrorCode, RedisErrorCode.ConnectionClosed>;
  /** The setting(s) that decide it, e.g. `REDIS_PASSWORD`. */
  readonly setting: string;
  readonly reason: string;
  /** A misconfiguration: retrying will not help, start-up refuses it. */
  readonly permanent: boolean;
}

/** Redis could not be used at start-up because of a setting; the message names it (never its value). */
export class RedisConnectionError extends CodedError {
  constructor(
    readonly failure: RedisFailure,
    cause: unknown,
  ) {
    super(
      failure.code,
      `Redis: ${failure.reason} (check ${failure.setting})`,
      { setting: failure.setting },
      { cause },
    );
  }
}

/** Node's certificate verification codes: the server's certificate is not trusted. */
const UNTRUSTED_CODES = new Set([
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'UNABLE_TO_GET_ISSUER_CERT',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'CERT_SIGNATURE_FAILURE',
  'CERT_UNTRUSTED',
  'CERT_HAS_EXPIRED',
  'CERT_NOT_YET_VALID',
  'ERR_TLS_CERT_ALTNAME_INVALID',
]);

/** OpenSSL codes of a TLS client talking to a port that does not speak TLS. */
const NOT_TLS_CODES = new Set(['ERR_SSL_WRONG_VERSION_NUMBER', 'ERR_SSL_PACKET_LENGTH_TOO_LONG']);

const failure = (
  code: RedisFailure['code'],
  setting: string,
  reason: string,
  permanent = true,
): RedisFailure => ({ code, setting, reason, permanent });

function codeOf(error: unknown): string {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : '';
}

function fromReply(message: string): RedisFailure | undefined {
  const word = message.split(' ', 1)[0] ?? '';
  if (
    word === 'WRONGPASS' ||
    word === 'NOAUTH' ||
    /^ERR (AUTH|invalid password|Client sent AUTH)/.test(message)
  )
    return failure(
      RedisErrorCode.AuthFailed,
      'REDIS_USERNAME/REDIS_PASSWORD',
      `authentication failed (${word})`,
    );
  if (word === 'NOPERM')
    return failure(
      RedisErrorCode.AclDenied,
      'REDIS_USERNAME',
      `the ACL user may not run a command: ${message}`,
    );
  if (message.includes('cluster support disabled'))
    return failure(
      RedisErrorCode.ModeMismatch,
      'REDIS_MODE',
      'REDIS_MODE is cluster but the server is not a cluster node',
    );
  if (word === 'MOVED' || word === 'ASK')
    return failure(
      RedisErrorCode.ModeMismatch,
      'REDIS_MODE',
      'the server is a cluster node but REDIS_MODE is not cluster',
    );
  // The server's reply, or ioredis's own check of a cluster pipeline (auto-pipelining included).
  if (word === 'CROSSSLOT' || /should belong to the same slot/.test(message))
    return failure(
      RedisErrorCode.Crossslot,
      'keys (hash tags)',
      `keys of one command are in different hash slots: ${message}`,
    );
  if (word === 'CLUSTERDOWN' || message.startsWith('Failed to refresh slots cache'))
    return failure(
      RedisErrorCode.ClusterDown,
      'REDIS_CLUSTER_NODES',
      `the cluster does not serve all slots (${word})`,
      false,
    );
  if (message.startsWith('All sentinels are unreachable')) return fromSentinels(message);
  return undefined;
}

/**
 * ioredis's summary after asking every sentinel: with no "Last error" each sentinel answered but
 * named no master by that name; else the last sentinel's error says why.
 */
function fromSentinels(message: string): RedisFailure {
  const last = /Last error: (.*)$/.exec(message)?.[1];
  if (last === undefined || /No such master/i.test(last))
    return failure(
      RedisErrorCode.SentinelFailed,
      'REDIS_SENTINEL_MASTER',
      'the sentinels know no master by that name',
    );
  if (/^(WRONGPASS|NOAUTH|ERR AUTH|ERR invalid password)/.test(last))
    return failure(
      RedisErrorCode.AuthFailed,
      'REDIS_SENTINEL_PASSWORD',
      'the sentinels refused the credentials',
    );
  return failure(RedisErrorCode.SentinelFailed, 'REDIS_SENTINELS', 'no sentinel answered', false);
}

/** What the caller saw of the connection besides the error. */
export interface RedisFailureContext {
  /** A TCP (or TLS) connection was made and closed with no answer. */
  readonly closedBeforeReply?: boolean;
  /** The connection uses TLS (REDIS_URL rediss://). */
  readonly tls?: boolean;
}

function fromClose(context: RedisFailureContext): RedisFailure {
  if (context.tls === true)
    return failure(
      RedisErrorCode.TlsRefused,
      'REDIS_TLS_CERT_FILE/REDIS_TLS_KEY_FILE',
      'the server closed the TLS connection without answering; it may require a client certificate',
    );
  return failure(
    RedisErrorCode.PlainToTls,
    'REDIS_URL',
    'the server closed the connection without answering; a TLS-only port needs rediss://',
  );
}

/**
 * Names what failed: an authentication, a TLS handshake, a cluster or mode mismatch, or only an
 * unreachable server (transient).
 */
export function describeRedisFailure(error: unknown, context: RedisFailureContext = {}): RedisFailure {
  const nested = (error as { lastNodeError?: unknown } | null)?.lastNodeError;
  if (nested !== undefined && nested !== null) return describeRedisFailure(nested, context);
  const code = codeOf(error);
  const message = error instanceof Error ? error.message : String(error);
  if (UNTRUSTED_CODES.has(code))
    return failure(
      RedisErrorCode.TlsUntrusted,
      'REDIS_TLS_CA_FILE',
      `TLS handshake failed: server certificate not trusted (${code})`,
    );
  if (NOT_TLS_CODES.has(code) || message.includes('before secure TLS connection was established'))
    return failure(
      RedisErrorCode.TlsNotSpoken,
      'REDIS_URL',
      `TLS handshake failed: the port does not speak TLS (${code}); use redis://`,
    );
  if (code.startsWith('ERR_SSL_'))
    return failure(
      RedisErrorCode.TlsRefused,
      'REDIS_TLS_CERT_FILE/REDIS_TLS_KEY_FILE',
      `TLS handshake refused by the server (${code}); it may require a client certificate`,
    );
  const reply = fromReply(message);
  if (reply !== undefined) return reply;
  if (context.closedBeforeReply === true) return fromClose(context);
  return failure(RedisErrorCode.Unreachable, 'REDIS_URL', `not reachable (${code || 'no answer'})`, false);
}
