import { Expose, Transform } from 'class-transformer';
import {
  ArrayMinSize,
  IsIn,
  IsInt,
  IsNotEmpty,
  IsOptional,
  IsString,
  Matches,
  Max,
  MaxLength,
  Min,
  ValidateBy,
} from 'class-validator';
import { ToInt, ToList } from './env-transforms';
import * as kafkaRules from './kafka-security.rules';
import { EmptyAsUnset, KafkaRule, LowerCase, UpperCase } from './kafka-security.rules';
import {
  CaFileForVerifyCa,
  MYSQL_SSL_MODES,
  type MysqlSslMode,
  OnlyWith,
  OnlyWithMysqlTls,
  PemFile,
} from './mysql-config.validators';
import {
  OnlyInRedisMode,
  REDIS_MODES,
  RedisNodeList,
  type RedisMode,
  RedisTlsFile,
  RedisUrlFits,
} from './redis-config.checks';

/** The management port when MANAGEMENT_PORT is unset (OpenTelemetry's Prometheus exporter port). */
export const DEFAULT_MANAGEMENT_PORT = 9464;

/** A port that must not equal another port variable of the same class (0, "any free port", may repeat). */
function DiffersFrom(other: string): PropertyDecorator {
  return ValidateBy({
    name: 'differsFrom',
    constraints: [other],
    validator: {
      validate: (value: unknown, args) =>
        value === 0 || value !== (args?.object as Record<string, unknown>)[other],
      defaultMessage: (args) => `${args?.property ?? 'port'} must differ from ${other}`,
    },
  });
}

// Each class is one concern; an app lists the ones it needs (composition, no base class).

export class HttpConfig {
  @Expose() @IsString() @IsNotEmpty() HTTP_HOST = '0.0.0.0';
  @Expose() @ToInt() @IsInt() @Min(0) @Max(65535) HTTP_PORT!: number;
  /**
   * The management listener: `/health/live`, `/health/ready` and `/metrics`, unauthenticated, for probes
   * and scrapes only (the API port answers 404 there). 0 picks a free port.
   */
  @Expose()
  @ToInt()
  @IsInt()
  @Min(0)
  @Max(65535)
  @DiffersFrom('HTTP_PORT')
  MANAGEMENT_PORT = DEFAULT_MANAGEMENT_PORT;
  /** The management listener's address; HTTP_HOST's when unset or empty (see managementHost). */
  @Expose()
  @Transform(({ value }: { value: unknown }) => (value === '' ? undefined : value))
  @IsOptional()
  @IsString()
  MANAGEMENT_HOST?: string;
  /** Time allowed to finish in-flight work after SIGTERM before the process exits anyway. */
  @Expose() @ToInt() @IsInt() @Min(1000) @Max(600_000) SHUTDOWN_TIMEOUT_MS = 15_000;
}

/** Where the management listener binds: MANAGEMENT_HOST, or HTTP_HOST when that is unset. */
export function managementHost(http: HttpConfig): string {
  return http.MANAGEMENT_HOST ?? http.HTTP_HOST;
}

export class RuntimeConfig {
  /**
   * How far V8 lets the old heap grow past what survived the last full collection before it collects
   * again (`--heap-growing-percent`): 100 means twice the live set. 0 leaves V8's own factor, which
   * scales with the machine's memory (up to 4x; measured: a sender whose live set was 62-67 MB grew
   * its heap to 250-280 MB and its RSS past 400 MB). See applyHeapGrowth.
   */
  @Expose() @ToInt() @IsInt() @Min(0) @Max(300) HEAP_GROWING_PERCENT = 100;
}

export class LogConfig {
  @Expose() @IsIn(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']) LOG_LEVEL = 'info';
}

export class KafkaConfig {
  @Expose()
  @ToList()
  @ArrayMinSize(1, { message: 'KAFKA_BROKERS must list at least one host:port' })
  @Matches(/^[A-Za-z0-9.-]+:\d{1,5}$/, { each: true, message: 'KAFKA_BROKERS entries must be host:port' })
  KAFKA_BROKERS!: string[];

  @Expose() @IsOptional() @IsString() @MaxLength(100) KAFKA_CLIENT_ID?: string;

  /** Prefix of every topic and consumer group, to share a cluster between environments (or test suites). */
  @Expose()
  @IsOptional()
  @Matches(/^[a-z0-9][a-z0-9-]{0,39}$/, { message: 'KAFKA_NAMESPACE must be 1-40 of a-z, 0-9 and -' })
  KAFKA_NAMESPACE?: string;

  /** Consumer group session timeout: how soon a dead consumer's partitions move to the others. */
  @Expose() @ToInt() @IsInt() @Min(6_000) @Max(300_000) KAFKA_SESSION_TIMEOUT_MS = 30_000;

  /**
   * Bytes a consumer's fetch may bring (over all its partitions; 1 MiB a partition at most). What a
   * fetch brought stays in memory while any of its messages is being handled: kafkajs's 10 MiB put
   * a sender's peak RSS at 275-295 MB with 100,000 pipeline recipients, 4 MiB at 248 MB, same CPU.
   */
  @Expose() @ToInt() @IsInt() @Min(1_048_576) @Max(67_108_864) KAFKA_FETCH_MAX_BYTES = 4_194_304;

  // Security (docs/operations.md, "Secured and managed engines"). Each rule names its variable and
  // refuses inconsistent combinations; the client options are built in kafka-security.ts.
  /** PLAINTEXT, SSL (TLS), SASL_SSL (SASL over TLS) or SASL_PLAINTEXT. */
  @Expose() @UpperCase() @KafkaRule(kafkaRules.protocolRule) KAFKA_SECURITY_PROTOCOL = 'PLAINTEXT';
  /** PEM file of the CA(s) that signed the brokers' certificates; the system CAs when unset. */
  @Expose() @EmptyAsUnset() @KafkaRule(kafkaRules.caFileRule) KAFKA_SSL_CA_FILE?: string;
  /** mTLS: PEM client certificate and its key (both or neither); the key may be encrypted. */
  @Expose() @EmptyAsUnset() @KafkaRule(kafkaRules.certFileRule) KAFKA_SSL_CERT_FILE?: string;
  @Expose() @EmptyAsUnset() @KafkaRule(kafkaRules.keyFileRule) KAFKA_SSL_KEY_FILE?: string;
  @Expose() @EmptyAsUnset() @KafkaRule(kafkaRules.keyPasswordRule) KAFKA_SSL_KEY_PASSWORD?: string;
  /** scram-sha-256, scram-sha-512, plain or oauthbearer; required with a SASL_* protocol. */
  @Expose() @EmptyAsUnset() @LowerCase() @KafkaRule(kafkaRules.mechanismRule) KAFKA_SASL_MECHANISM?: string;
  @Expose() @EmptyAsUnset() @KafkaRule(kafkaRules.saslCredentialRule) KAFKA_SASL_USERNAME?: string;
  @Expose() @EmptyAsUnset() @KafkaRule(kafkaRules.saslCredentialRule) KAFKA_SASL_PASSWORD?: string;
  /** oauthbearer: a client-credentials grant at this token endpoint (https, or http on loopback). */
  @Expose() @EmptyAsUnset() @KafkaRule(kafkaRules.oauthTokenUrlRule) KAFKA_SASL_OAUTH_TOKEN_URL?: string;
  @Expose() @EmptyAsUnset() @KafkaRule(kafkaRules.oauthRequiredRule) KAFKA_SASL_OAUTH_CLIENT_ID?: string;
  @Expose() @EmptyAsUnset() @KafkaRule(kafkaRules.oauthRequiredRule) KAFKA_SASL_OAUTH_CLIENT_SECRET?: string;
  @Expose() @EmptyAsUnset() @KafkaRule(kafkaRules.oauthScopeRule) KAFKA_SASL_OAUTH_SCOPE?: string;
}

export class MysqlConfig {
  @Expose() @IsString() @IsNotEmpty() MYSQL_HOST = '127.0.0.1';
  @Expose() @ToInt() @IsInt() @Min(1) @Max(65535) MYSQL_PORT = 3306;
  /** Each service has an account of its own (libs/contracts service-grants.ts): no default. */
  @Expose()
  @IsNotEmpty({ message: "MYSQL_USER must be set (the service's own account)" })
  MYSQL_USER!: string;
  @Expose() @IsString() MYSQL_PASSWORD = '';
  /**
   * TLS as the mysql client's --ssl-mode: DISABLED, REQUIRED (encrypted, server not verified), VERIFY_CA
   * (chain checked against MYSQL_SSL_CA_FILE), VERIFY_IDENTITY (and the host name; the system CAs when
   * MYSQL_SSL_CA_FILE is unset).
   */
  @Expose() @IsIn(MYSQL_SSL_MODES) @CaFileForVerifyCa() MYSQL_SSL_MODE: MysqlSslMode = 'DISABLED';
  @Expose() @EmptyAsUnset() @OnlyWithMysqlTls() @PemFile('CERTIFICATE') MYSQL_SSL_CA_FILE?: string;
  /** A client certificate and its key, for servers that require one (X509 accounts). */
  @Expose()
  @EmptyAsUnset()
  @OnlyWithMysqlTls()
  @OnlyWith('MYSQL_SSL_KEY_FILE')
  @PemFile('CERTIFICATE')
  MYSQL_SSL_CERT_FILE?: string;
  @Expose()
  @EmptyAsUnset()
  @OnlyWithMysqlTls()
  @OnlyWith('MYSQL_SSL_CERT_FILE')
  @PemFile('PRIVATE KEY')
  MYSQL_SSL_KEY_FILE?: string;
  /** A read-only endpoint (a replica, Aurora's reader) for message listing and CSV export. */
  @Expose() @EmptyAsUnset() @IsOptional() @IsString() MYSQL_READ_HOST?: string;
  @Expose()
  @EmptyAsUnset()
  @ToInt()
  @OnlyWith('MYSQL_READ_HOST')
  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(65535)
  MYSQL_READ_PORT?: number;
  @Expose()
  @Matches(/^[A-Za-z0-9_]{1,64}$/, { message: 'MYSQL_DATABASE must be letters, digits or _' })
  MYSQL_DATABASE = 'ums';
  @Expose() @ToInt() @IsInt() @Min(1) @Max(500) MYSQL_POOL_SIZE = 10;
}

export class RedisConfig {
  /**
   * The server (standalone), or in cluster and sentinel mode only the scheme (rediss:// for TLS), the
   * credentials and the database. May carry user:password; REDIS_USERNAME/REDIS_PASSWORD override them.
   */
  @Expose()
  @Matches(/^rediss?:\/\/[^\s]+$/, { message: 'REDIS_URL must be redis://host:port[/db]' })
  @RedisUrlFits()
  REDIS_URL = 'redis://127.0.0.1:6379/0';

  /** An ACL user (Redis 6+); `default` when unset. */
  @Expose() @EmptyAsUnset() @IsOptional() @IsString() REDIS_USERNAME?: string;
  @Expose() @EmptyAsUnset() @IsOptional() @IsString() REDIS_PASSWORD?: string;

  /** PEM CA bundle that signs the server's certificate (system CAs when unset); needs rediss://. */
  @Expose() @EmptyAsUnset() @IsOptional() @RedisTlsFile({ kind: 'CERTIFICATE' }) REDIS_TLS_CA_FILE?: string;
  /** Client certificate and key for mTLS: both or neither; need rediss://. */
  @Expose()
  @EmptyAsUnset()
  @IsOptional()
  @RedisTlsFile({ kind: 'CERTIFICATE', pair: 'REDIS_TLS_KEY_FILE' })
  REDIS_TLS_CERT_FILE?: string;
  @Expose()
  @EmptyAsUnset()
  @IsOptional()
  @RedisTlsFile({ kind: 'PRIVATE KEY', pair: 'REDIS_TLS_CERT_FILE' })
  REDIS_TLS_KEY_FILE?: string;

  @Expose() @IsIn(REDIS_MODES) REDIS_MODE: RedisMode = 'standalone';
  /** Cluster mode: some of the cluster's nodes (host:port); the rest are discovered. */
  @Expose() @ToList() @RedisNodeList('cluster') REDIS_CLUSTER_NODES: string[] = [];
  /** Sentinel mode: the sentinels (host:port) and the name of the master they watch. */
  @Expose() @ToList() @RedisNodeList('sentinel') REDIS_SENTINELS: string[] = [];
  @Expose() @EmptyAsUnset() @OnlyInRedisMode('sentinel', true) REDIS_SENTINEL_MASTER?: string;
  /** The sentinels' own password (`requirepass` of sentinel.conf), when they have one. */
  @Expose() @EmptyAsUnset() @OnlyInRedisMode('sentinel', false) REDIS_SENTINEL_PASSWORD?: string;
}
