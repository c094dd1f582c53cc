import { readFileSync } from 'node:fs';
import type { ConnectionOptions } from 'node:tls';
import { Cluster, Redis, type ClusterOptions, type RedisOptions } from 'ioredis';
import type { RedisConfig } from '../config/common.config';

/** The platform's Redis connection: one server (standalone or the master Sentinel names) or a Redis Cluster. */
export type RedisClient = Redis | Cluster;

/** Nest injection token of the shared RedisClient (RedisModule provides it). */
export const REDIS_CLIENT = Symbol('REDIS_CLIENT');

/** Longest wait for one command's answer or a connection; the rate limiter's scripts answer in microseconds. */
export const REDIS_COMMAND_TIMEOUT_MS = 2_000;

/** Tuning every platform connection shares; callers (tests, tools) may override it. */
export const REDIS_DEFAULT_OPTIONS: RedisOptions = {
  maxRetriesPerRequest: 3,
  // A server that accepts connections but never answers (paused, partitioned) fails commands
  // instead of hanging them; reconnects are tried at least every second.
  commandTimeout: REDIS_COMMAND_TIMEOUT_MS,
  connectTimeout: REDIS_COMMAND_TIMEOUT_MS,
  retryStrategy: (times: number) => Math.min(1_000, 50 * times),
  enableAutoPipelining: true,
  lazyConnect: false,
};

export interface RedisClientOptions {
  readonly config: RedisConfig;
  /** Merged over REDIS_DEFAULT_OPTIONS (per node in a cluster). */
  readonly overrides?: RedisOptions;
}

/** The settings of REDIS_URL and the REDIS_* overrides: credentials, database and TLS. */
export function redisConnectionOptions(config: RedisConfig): RedisOptions {
  const url = new URL(config.REDIS_URL);
  const db = Number(url.pathname.replace(/^\//, '') || '0');
  const username = config.REDIS_USERNAME ?? (decodeURIComponent(url.username) || undefined);
  const password = config.REDIS_PASSWORD ?? (decodeURIComponent(url.password) || undefined);
  const options: RedisOptions = { db };
  if (username !== undefined) options.username = username;
  if (password !== undefined) options.password = password;
  const tls = redisTlsOptions(config);
  if (tls !== undefined) options.tls = tls;
  return options;
}

/** TLS settings when REDIS_URL is rediss:// (system CAs unless REDIS_TLS_CA_FILE), else undefined. */
export function redisTlsOptions(config: RedisConfig): ConnectionOptions | undefined {
  if (!config.REDIS_URL.startsWith('rediss://')) return undefined;
  const tls: ConnectionOptions = {};
  if (config.REDIS_TLS_CA_FILE !== undefined) tls.ca = readFileSync(config.REDIS_TLS_CA_FILE, 'utf8');
  if (config.REDIS_TLS_CERT_FILE !== undefined && config.REDIS_TLS_KEY_FILE !== undefined) {
    tls.cert = readFileSync(config.REDIS_TLS_CERT_FILE, 'utf8');
    tls.key = readFileSync(config.REDIS_TLS_KEY_FILE, 'utf8');
  }
  return tls;
}

const hostPort = (entry: string): { host: string; port: number } => {
  const at = entry.lastIndexOf(':');
  return { host: entry.slice(0, at), port: Number(entry.slice(at + 1)) };
};

/**
 * The one place a Redis connection is built from RedisConfig (services, tools and tests alike):
 * standalone from REDIS_URL, a Cluster from REDIS_CLUSTER_NODES, or Sentinel's master.
 */
export function createRedisClient(options: RedisClientOptions): RedisClient {
  const { config } = options;
  const node: RedisOptions = {
    ...REDIS_DEFAULT_OPTIONS,
    ...redisConnectionOptions(config),
    ...options.overrides,
  };
  if (config.REDIS_MODE === 'cluster') {
    const { retryStrategy, ...redisOptions } = node;
    const clusterOptions: ClusterOptions = {
      redisOptions,
      clusterRetryStrategy: retryStrategy ?? null,
      enableAutoPipelining: node.enableAutoPipelining ?? false,
      lazyConnect: node.lazyConnect ?? false,
      slotsRefreshTimeout: REDIS_COMMAND_TIMEOUT_MS,
      // Scripts and writes go to masters; nothing reads from replicas.
      scaleReads: 'master',
    };
    // A TLS cluster announces IP addresses; the certificate must carry them (or set servername).
    return new Cluster(config.REDIS_CLUSTER_NODES.map(hostPort), clusterOptions);
  }
  if (config.REDIS_MODE === 'sentinel') {
    const sentinel: RedisOptions = {
      ...node,
      sentinels: config.REDIS_SENTINELS.map(hostPort),
      name: config.REDIS_SENTINEL_MASTER ?? '',
    };
    if (config.REDIS_SENTINEL_PASSWORD !== undefined)
      sentinel.sentinelPassword = config.REDIS_SENTINEL_PASSWORD;
    if (node.tls !== undefined) {
      sentinel.enableTLSForSentinelMode = true;
      sentinel.sentinelTLS = node.tls;
    }
    return new Redis(sentinel);
  }
  const url = new URL(config.REDIS_URL);
  return new Redis({ ...node, host: url.hostname.replace(/^\[|\]$/g, ''), port: Number(url.port || '6379') });
}

/** Whether the client is a Redis Cluster connection (commands of one pipeline must share a node). */
export function isRedisCluster(client: RedisClient): client is Cluster {
  return client instanceof Cluster;
}
