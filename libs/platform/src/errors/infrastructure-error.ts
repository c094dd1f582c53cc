import { RedisErrorCode } from '@ums/contracts';
import { ErrorKind } from './coded-error';

/** The engine an infrastructure failure came from, for logs, metrics and readiness. */
export type Dependency = 'mysql' | 'redis' | 'kafka' | 'unknown';

export interface InfrastructureFailure {
  readonly dependency: Dependency;
  /** The driver's code or the error's name, never its message (which may carry a host or a query). */
  readonly code: string;
}

/** Socket-level codes of Node, mysql2 and ioredis: the engine did not answer. */
const NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ECONNABORTED',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
  'ENOTCONN',
]);

/** mysql2 codes that a retry after a pause can cure (connection loss, failover, contention). */
const MYSQL_TRANSIENT = new Set([
  'PROTOCOL_CONNECTION_LOST',
  'PROTOCOL_SEQUENCE_TIMEOUT',
  'PROTOCOL_ENQUEUE_AFTER_FATAL_ERROR',
  'PROTOCOL_ENQUEUE_AFTER_QUIT',
  'ER_LOCK_DEADLOCK',
  'ER_LOCK_WAIT_TIMEOUT',
  'ER_CON_COUNT_ERROR',
  'ER_TOO_MANY_USER_CONNECTIONS',
  'ER_SERVER_SHUTDOWN',
  'ER_NORMAL_SHUTDOWN',
  'ER_QUERY_INTERRUPTED',
  'ER_CLIENT_INTERACTION_TIMEOUT',
  'ER_OPTION_PREVENTS_STATEMENT', // read_only during a failover
  'ER_CANT_CONNECT_TO_SERVER',
  'ER_UNKNOWN_COM_ERROR',
  'ER_NET_READ_ERROR',
  'ER_NET_READ_INTERRUPTED',
  'ER_NET_WRITE_INTERRUPTED',
  'ER_NET_ERROR_ON_WRITE',
  'ER_GET_TEMPORARY_ERRMSG',
  'ER_LOCK_TABLE_FULL',
  'ER_LOCK_NOWAIT',
  'ER_QUERY_TIMEOUT',
  'ER_STATEMENT_TIMEOUT',
  'ER_CONNECTION_KILLED',
]);

/** Redis replies (first word) that say "not now" rather than "never". */
const REDIS_TRANSIENT_REPLIES = new Set([
  'LOADING',
  'BUSY',
  'TRYAGAIN',
  'CLUSTERDOWN',
  'MASTERDOWN',
  'READONLY',
  'MOVED',
  'ASK',
  'NOREPLICAS',
]);

/** kafkajs errors by name that mean the cluster, not the record, is the problem. */
const KAFKA_TRANSIENT_NAMES = new Set([
  'KafkaJSConnectionError',
  'KafkaJSConnectionClosedError',
  'KafkaJSRequestTimeoutError',
  'KafkaJSBrokerNotFound',
  'KafkaJSLockTimeout',
  'KafkaJSMetadataNotLoaded',
  'KafkaJSNotImplemented',
  'KafkaJSStaleTopicMetadataAssignment',
  'KafkaJSServerDoesNotSupportApiKey',
  'KafkaJSTopicMetadataNotLoaded',
]);

/** Broker answers about the record itself: retrying the same bytes will never succeed. */
const KAFKA_RECORD_TYPES = new Set([
  'MESSAGE_TOO_LARGE',
  'RECORD_LIST_TOO_LARGE',
  'INVALID_RECORD',
  'CORRUPT_MESSAGE',
  'INVALID_TIMESTAMP',
  'UNSUPPORTED_COMPRESSION_TYPE',
]);

const MAX_DEPTH = 8;

/**
 * Whether an error says a dependency (MySQL, Redis, Kafka) is unavailable, slow or contended, as
 * opposed to something wrong with the work itself. Such errors are never a reason to dead-letter a
 * message or to fail a request for good: the caller waits and tries again. Causes are followed, so
 * a wrapped driver error is recognised.
 */
export function infrastructureFailure(error: unknown): InfrastructureFailure | undefined {
  let current: unknown = error;
  for (let depth = 0; depth < MAX_DEPTH && current !== undefined && current !== null; depth++) {
    const found = classifyOne(current);
    if (found === 'record') return undefined;
    if (found !== undefined) return found;
    current = nextCause(current);
  }
  return undefined;
}

export function isInfrastructureError(error: unknown): boolean {
  return infrastructureFailure(error) !== undefined;
}

function classifyOne(error: unknown): InfrastructureFailure | 'record' | undefined {
  if (typeof error !== 'object' || error === null) return undefined;
  const e = error as Record<string, unknown>;
  const name = typeof e['name'] === 'string' ? e['name'] : '';
  const code = typeof e['code'] === 'string' ? e['code'] : undefined;
  if (e['kind'] === ErrorKind.Unavailable) return { dependency: dependencyOf(e), code: code ?? name };
  if (name.startsWith('KafkaJS')) return classifyKafka(e, name);
  if (name === 'MaxRetriesPerRequestError') return { dependency: 'redis', code: name };
  if (name === 'ReplyError' && typeof e['message'] === 'string') {
    const word = e['message'].split(' ', 1)[0] ?? '';
    return REDIS_TRANSIENT_REPLIES.has(word) ? { dependency: 'redis', code: word } : undefined;
  }
  const message = typeof e['message'] === 'string' ? e['message'] : '';
  if (
    message === 'Connection is closed.' ||
    message === 'Command timed out' ||
    message.startsWith("Stream isn't writeable")
  ) {
    return { dependency: 'redis', code: RedisErrorCode.ConnectionClosed };
  }
  if (code !== undefined && MYSQL_TRANSIENT.has(code)) return { dependency: 'mysql', code };
  if (code !== undefined && NETWORK_CODES.has(code)) return { dependency: guessDependency(e), code };
  if (name === 'CannotExecuteNotConnectedError' || name === 'ConnectionIsNotSetError') {
    return { dependency: 'mysql', code: name };
  }
  return undefined;
}

function classifyKafka(
  e: Record<string, unknown>,
  name: string,
): InfrastructureFailure | 'record' | undefined {
  const type = typeof e['type'] === 'string' ? e['type'] : undefined;
  if (type !== undefined && KAFKA_RECORD_TYPES.has(type)) return 'record';
  if (KAFKA_TRANSIENT_NAMES.has(name)) return { dependency: 'kafka', code: name };
  if (e['retriable'] === true) return { dependency: 'kafka', code: type ?? name };
  // NumberOfRetriesExceeded and the like: their cause decides (a record error inside stays a record error).
  return undefined;
}

function nextCause(error: unknown): unknown {
  if (typeof error !== 'object' || error === null) return undefined;
  const e = error as Record<string, unknown>;
  return e['cause'] ?? e['originalError'] ?? e['driverError'] ?? e['lastError'];
}

function dependencyOf(e: Record<string, unknown>): Dependency {
  const details = e['details'];
  if (typeof details === 'object' && details !== null) {
    const dep = (details as Record<string, unknown>)['dependency'];
    if (dep === 'mysql' || dep === 'redis' || dep === 'kafka') return dep;
  }
  return 'unknown';
}

/** mysql2 errors carry `fatal` or `sqlState`; ioredis ones neither. */
function guessDependency(e: Record<string, unknown>): Dependency {
  if ('fatal' in e || 'sqlState' in e || 'sqlMessage' in e) return 'mysql';
  return 'unknown';
}
