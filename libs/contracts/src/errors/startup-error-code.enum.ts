/**
 * Start-up and connectivity: why a service refuses to start (a setting, an engine that refuses it)
 * or cannot use an engine. The message names the setting to look at, never a secret.
 */

/** The environment does not validate against the service's config classes. */
export enum ConfigErrorCode {
  /** One or more settings are missing or invalid; the message lists each `NAME: reason`. */
  Invalid = 'CONFIG_INVALID',
}

/** Kafka at start-up (topics, handlers, security) and while producing. */
export enum KafkaErrorCode {
  /** Topics a consumer needs do not exist on the cluster (create them from the contracts first). */
  TopicMissing = 'KAFKA_TOPIC_MISSING',
  /** A topic's partitions or min.insync.replicas could not be read from the cluster. */
  TopicUndescribed = 'KAFKA_TOPIC_UNDESCRIBED',
  /** Two handlers consume the same topic in the same consumer group. */
  DuplicateHandler = 'KAFKA_DUPLICATE_HANDLER',
  /** The service declares consumers (ServiceKafkaContracts) with no handler. */
  HandlerMissing = 'KAFKA_HANDLER_MISSING',
  /** The service has handlers its consumer contract does not declare. */
  HandlerUndeclared = 'KAFKA_HANDLER_UNDECLARED',
  /** A message pattern registered on the Kafka transport is not a @ConsumeTopic handler. */
  HandlerNotConsumer = 'KAFKA_HANDLER_NOT_CONSUMER',
  /** Something subscribed to the Kafka transport's events, which it never emits (read /health/ready). */
  TransportEvents = 'KAFKA_TRANSPORT_EVENTS',
  /** A SASL setting that validation should have required is missing: a config built around validation. */
  ConfigUnvalidated = 'KAFKA_CONFIG_UNVALIDATED',
  /** The OAuth token endpoint (KAFKA_SASL_OAUTH_TOKEN_URL) did not answer. */
  OauthTokenUnreachable = 'KAFKA_OAUTH_TOKEN_UNREACHABLE',
  /** The OAuth token endpoint refused the client-credentials grant. */
  OauthTokenRefused = 'KAFKA_OAUTH_TOKEN_REFUSED',
  /** The OAuth token endpoint answered without a usable access_token. */
  OauthTokenInvalid = 'KAFKA_OAUTH_TOKEN_INVALID',
  /** The TLS handshake with a broker failed (untrusted certificate, wrong host name, client certificate refused, not a TLS port). */
  TlsHandshakeFailed = 'KAFKA_TLS_HANDSHAKE_FAILED',
  /** The listener does not enable the configured SASL mechanism. */
  SaslMechanismNotEnabled = 'KAFKA_SASL_MECHANISM_NOT_ENABLED',
  /** KAFKA_SECURITY_PROTOCOL does not match what the listener speaks. */
  SecurityProtocolMismatch = 'KAFKA_SECURITY_PROTOCOL_MISMATCH',
  /** A topic range read for a replay by time did not reach the range's end in time; nothing was replayed past it. */
  RangeReadTimeout = 'KAFKA_RANGE_READ_TIMEOUT',
  /** The brokers refused the SASL credentials. */
  AuthenticationFailed = 'KAFKA_AUTHENTICATION_FAILED',
  /** No broker of KAFKA_BROKERS answered (it may just be starting). */
  Unreachable = 'KAFKA_UNREACHABLE',
  /** The idempotent producer lost its sequence state and was replaced: publish again. */
  ProducerReset = 'KAFKA_PRODUCER_RESET',
  /** An event was emitted (KafkaEventClient) to a name that is no contract topic. */
  TopicUnknown = 'KAFKA_TOPIC_UNKNOWN',
  /** A request-reply `send` on the Kafka event client: Kafka events have no reply, emit instead. */
  ReplyUnsupported = 'KAFKA_REPLY_UNSUPPORTED',
}

/** MySQL refused the service at start-up for a reason no retry cures. */
export enum MysqlErrorCode {
  /** The account (MYSQL_USER, MYSQL_PASSWORD or client certificate) was refused. */
  AuthFailed = 'MYSQL_AUTH_FAILED',
  /** The server's certificate is not signed by a CA in MYSQL_SSL_CA_FILE. */
  TlsUntrusted = 'MYSQL_TLS_UNTRUSTED',
  /** The server's certificate does not name MYSQL_HOST (MYSQL_SSL_MODE VERIFY_IDENTITY). */
  TlsHostMismatch = 'MYSQL_TLS_HOST_MISMATCH',
  /** The TLS handshake failed for another reason (client certificate or key). */
  TlsFailed = 'MYSQL_TLS_FAILED',
  /** The server accepts TLS connections only and MYSQL_SSL_MODE is DISABLED. */
  TlsRequired = 'MYSQL_TLS_REQUIRED',
  /** MYSQL_SSL_MODE asks for TLS but the server does not offer it. */
  TlsUnavailable = 'MYSQL_TLS_UNAVAILABLE',
  /** MYSQL_USER lacks privileges the service needs (libs/contracts service grants). */
  GrantMissing = 'MYSQL_GRANT_MISSING',
}

/** Redis could not be used: a setting at start-up, or the connection while running. */
export enum RedisErrorCode {
  /** The credentials (REDIS_USERNAME, REDIS_PASSWORD) were refused. */
  AuthFailed = 'REDIS_AUTH_FAILED',
  /** The ACL user may not run a command the service needs. */
  AclDenied = 'REDIS_ACL_DENIED',
  /** The server's certificate is not trusted (REDIS_TLS_CA_FILE). */
  TlsUntrusted = 'REDIS_TLS_UNTRUSTED',
  /** The server refused the TLS handshake (it may require a client certificate). */
  TlsRefused = 'REDIS_TLS_REFUSED',
  /** The port answers TCP but does not speak TLS: use redis://. */
  TlsNotSpoken = 'REDIS_TLS_NOT_SPOKEN',
  /** The server closed a plain connection without answering: a TLS-only port needs rediss://. */
  PlainToTls = 'REDIS_PLAIN_TO_TLS',
  /** REDIS_MODE (standalone, cluster, sentinel) is not what the server runs. */
  ModeMismatch = 'REDIS_MODE_MISMATCH',
  /** A cluster refused a multi-key command across slots. */
  Crossslot = 'REDIS_CROSSSLOT',
  /** The cluster is down or has unassigned slots. */
  ClusterDown = 'REDIS_CLUSTER_DOWN',
  /** The sentinels could not name a master (REDIS_SENTINELS, REDIS_SENTINEL_MASTER). */
  SentinelFailed = 'REDIS_SENTINEL_FAILED',
  /** No Redis node answered. */
  Unreachable = 'REDIS_UNREACHABLE',
  /** The Redis client's connection is closed or not writable: work waits for it to reconnect. */
  ConnectionClosed = 'REDIS_CONNECTION_CLOSED',
}

/** A sealed secret (credential or subscriber secret) could not be opened with SECRETS_KEYS. */
export enum SecretErrorCode {
  /** The sealed value is not in the `v1:<keyId>:<iv>:<tag>:<ciphertext>` format. */
  Malformed = 'SECRET_MALFORMED',
  /** The value was sealed with a key no longer in SECRETS_KEYS. */
  KeyUnknown = 'SECRET_KEY_UNKNOWN',
  /** The value failed authentication: altered, or the key changed. */
  Tampered = 'SECRET_TAMPERED',
  /** The value could not be opened for a reason other than the three above. */
  Invalid = 'SECRET_INVALID',
}
