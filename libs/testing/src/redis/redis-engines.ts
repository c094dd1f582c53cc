import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { freePort } from '../net/free-port';
import { ManagedProcess } from '../process/managed-process';
import { waitUntil } from '../process/wait-until';
import type { SecureEngine } from '../secure-engine';
import type { TestPki } from '../tls/test-pki';

const run = promisify(execFile);

/** The ACL user that secured test Redis servers accept (the `default` user is disabled). */
export const TEST_REDIS_USER = 'ums';

export interface SecureRedisOptions {
  /** Config, logs and cluster state live here. */
  readonly dir: string;
  readonly pki: TestPki;
  /** standalone (default): one server; cluster: three masters, TLS on the cluster bus too. */
  readonly mode?: 'standalone' | 'cluster';
  /** Refuse clients without a certificate of the CA (`tls-auth-clients yes`); env then carries one. */
  readonly requireClientCert?: boolean;
}

export interface RedisClusterOptions {
  readonly dir: string;
  readonly masters: number;
}

interface NodeSecurity {
  readonly pki: TestPki;
  readonly password: string;
  readonly requireClientCert: boolean;
}

interface RedisNode {
  readonly port: number;
  readonly process: ManagedProcess;
}

/** A port whose cluster-bus port (+10000) is free too. */
async function nodePort(): Promise<number> {
  for (;;) {
    const port = await freePort();
    if (port + 10_000 <= 65_535 && (await isFree(port + 10_000))) return port;
  }
}

function isFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

function nodeArgs(dir: string, port: number, cluster: boolean, security?: NodeSecurity): string[] {
  const args = ['--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir];
  if (cluster)
    args.push(
      '--cluster-enabled',
      'yes',
      '--cluster-config-file',
      join(dir, 'nodes.conf'),
      '--cluster-node-timeout',
      '5000',
    );
  if (security === undefined) return [...args, '--port', String(port)];
  const { pki } = security;
  args.push('--port', '0', '--tls-port', String(port));
  args.push('--tls-cert-file', pki.server.certFile, '--tls-key-file', pki.server.keyFile);
  args.push('--tls-ca-cert-file', pki.ca.certFile);
  args.push('--tls-auth-clients', security.requireClientCert ? 'yes' : 'no');
  if (cluster) args.push('--tls-cluster', 'yes', '--tls-replication', 'yes');
  // The default user is off: every client must name the ACL user.
  args.push(
    '--user',
    'default',
    'off',
    '--user',
    TEST_REDIS_USER,
    'on',
    `>${security.password}`,
    '~*',
    '&*',
    '+@all',
  );
  return args;
}

function cliArgs(security?: NodeSecurity): string[] {
  if (security === undefined) return [];
  const tls = ['--tls', '--cacert', security.pki.ca.certFile];
  const cert = security.requireClientCert
    ? ['--cert', security.pki.client.certFile, '--key', security.pki.client.keyFile]
    : [];
  return [...tls, ...cert, '--user', TEST_REDIS_USER, '--pass', security.password, '--no-auth-warning'];
}

async function redisCli(port: number, args: readonly string[], security?: NodeSecurity): Promise<string> {
  const { stdout } = await run(
    'redis-cli',
    ['-h', '127.0.0.1', '-p', String(port), ...cliArgs(security), ...args],
    {
      timeout: 30_000,
    },
  );
  return stdout;
}

interface NodeOptions {
  readonly cluster?: boolean;
  /** TLS and the ACL user (startSecureRedis). */
  readonly security?: NodeSecurity;
  /** The default user's password (requirepass), for PING while it starts. */
  readonly password?: string;
  readonly extraArgs?: readonly string[];
}

async function startNode(dir: string, options: NodeOptions = {}): Promise<RedisNode> {
  const port = await nodePort();
  const nodeDir = join(dir, `node-${port}`);
  mkdirSync(nodeDir, { recursive: true });
  const server = new ManagedProcess({
    name: `redis-${port}`,
    command: 'redis-server',
    args: [
      ...nodeArgs(nodeDir, port, options.cluster === true, options.security),
      ...(options.extraArgs ?? []),
    ],
    logFile: join(nodeDir, 'redis.log'),
  });
  server.start();
  const auth = options.password === undefined ? [] : ['-a', options.password, '--no-auth-warning'];
  await waitUntil(
    `redis-server on ${port}`,
    async () => (await redisCli(port, [...auth, 'ping'], options.security).catch(() => '')).trim() === 'PONG',
    { timeoutMs: 30_000, intervalMs: 100, abortIf: server.exitedUnexpectedly },
  );
  return { port, process: server };
}

async function stopAll(nodes: readonly RedisNode[]): Promise<void> {
  await Promise.all(nodes.map((node) => node.process.stop(10_000)));
}

/** Joins the nodes as masters (16384 slots split evenly) and waits until every node says state ok. */
async function formCluster(nodes: readonly RedisNode[], security?: NodeSecurity): Promise<void> {
  const first = nodes[0];
  if (first === undefined) throw new Error('a cluster needs nodes');
  const addresses = nodes.map((node) => `127.0.0.1:${node.port}`);
  await redisCli(
    first.port,
    ['--cluster', 'create', ...addresses, '--cluster-replicas', '0', '--cluster-yes'],
    security,
  );
  await waitUntil(
    'the Redis Cluster to serve all slots on every node',
    async () => {
      const infos = await Promise.all(
        nodes.map((node) => redisCli(node.port, ['cluster', 'info'], security)),
      );
      return infos.every(
        (info) =>
          /cluster_state:ok/.test(info) &&
          /cluster_known_nodes:(\d+)/.exec(info)?.[1] === String(nodes.length),
      );
    },
    { timeoutMs: 30_000, intervalMs: 200 },
  );
}

async function startNodes(
  dir: string,
  count: number,
  cluster: boolean,
  security?: NodeSecurity,
): Promise<RedisNode[]> {
  const nodes: RedisNode[] = [];
  try {
    for (let i = 0; i < count; i++) nodes.push(await startNode(dir, { cluster, security }));
    if (cluster) await formCluster(nodes, security);
    return nodes;
  } catch (error: unknown) {
    await stopAll(nodes);
    throw error;
  }
}

/**
 * A plain Redis Cluster on loopback (`redis-server --cluster-enabled yes`, joined with
 * `redis-cli --cluster create`), masters only, nothing persisted. The caller must stop() it.
 */
export async function startRedisCluster(
  options: RedisClusterOptions,
): Promise<SecureEngine & { nodes: string[] }> {
  const nodes = await startNodes(options.dir, options.masters, true);
  const addresses = nodes.map((node) => `127.0.0.1:${node.port}`);
  return {
    nodes: addresses,
    env: {
      REDIS_MODE: 'cluster',
      REDIS_URL: `redis://${addresses[0] ?? ''}/0`,
      REDIS_CLUSTER_NODES: addresses.join(','),
    },
    stop: () => stopAll(nodes),
  };
}

/**
 * Redis that only speaks TLS (certificate of `pki.server`) and only lets in one ACL user with a
 * random password, standalone or as a three-master cluster. `env` holds the REDIS_* settings a
 * client needs (rediss:// URL, user, password, CA; the client certificate when required).
 */
export async function startSecureRedis(options: SecureRedisOptions): Promise<SecureEngine> {
  const security: NodeSecurity = {
    pki: options.pki,
    password: randomBytes(12).toString('hex'),
    requireClientCert: options.requireClientCert === true,
  };
  const cluster = options.mode === 'cluster';
  const nodes = await startNodes(options.dir, cluster ? 3 : 1, cluster, security);
  const addresses = nodes.map((node) => `127.0.0.1:${node.port}`);
  const env: Record<string, string> = {
    REDIS_URL: `rediss://${addresses[0] ?? ''}/0`,
    REDIS_USERNAME: TEST_REDIS_USER,
    REDIS_PASSWORD: security.password,
    REDIS_TLS_CA_FILE: options.pki.ca.certFile,
  };
  if (security.requireClientCert) {
    env['REDIS_TLS_CERT_FILE'] = options.pki.client.certFile;
    env['REDIS_TLS_KEY_FILE'] = options.pki.client.keyFile;
  }
  if (cluster) {
    env['REDIS_MODE'] = 'cluster';
    env['REDIS_CLUSTER_NODES'] = addresses.join(',');
  }
  return { env, stop: () => stopAll(nodes) };
}

export interface RedisSentinelOptions {
  readonly dir: string;
  /** The master's name that the sentinel watches (REDIS_SENTINEL_MASTER). */
  readonly masterName?: string;
  /** A replica of the master too, for a failover (`SENTINEL FAILOVER <name>`). */
  readonly replica?: boolean;
}

/**
 * A master (password-protected), optionally a replica, and one sentinel
 * (`redis-server <conf> --sentinel`, with a password of its own) watching the master, on loopback.
 * `env` holds the REDIS_* settings of sentinel mode.
 */
export async function startRedisSentinel(
  options: RedisSentinelOptions,
): Promise<SecureEngine & { masterName: string; sentinelPort: number }> {
  const masterName = options.masterName ?? 'ums-master';
  const password = randomBytes(12).toString('hex');
  const sentinelPassword = randomBytes(12).toString('hex');
  const auth = ['--requirepass', password, '--masterauth', password];
  const master = await startNode(options.dir, { password, extraArgs: auth });
  const nodes = [master];
  try {
    if (options.replica === true)
      nodes.push(
        await startNode(options.dir, {
          password,
          extraArgs: [...auth, '--replicaof', '127.0.0.1', String(master.port)],
        }),
      );
    const sentinel = await startSentinel({
      dir: options.dir,
      masterName,
      masterPort: master.port,
      password,
      sentinelPassword,
    });
    nodes.push(sentinel);
    const sentinelPort = sentinel.port;
    const replica = nodes[1];
    if (replica !== undefined && replica !== sentinel)
      await sentinelSeesReplica({ sentinelPort, sentinelPassword, masterName, replicaPort: replica.port });
    return {
      masterName,
      sentinelPort,
      env: {
        REDIS_MODE: 'sentinel',
        REDIS_URL: 'redis://127.0.0.1/0',
        REDIS_PASSWORD: password,
        REDIS_SENTINELS: `127.0.0.1:${sentinelPort}`,
        REDIS_SENTINEL_MASTER: masterName,
        REDIS_SENTINEL_PASSWORD: sentinelPassword,
      },
      stop: () => stopAll(nodes),
    };
  } catch (error: unknown) {
    await stopAll(nodes);
    throw error;
  }
}

interface SentinelSettings {
  readonly dir: string;
  readonly masterName: string;
  readonly masterPort: number;
  readonly password: string;
  readonly sentinelPassword: string;
}

/** One sentinel (`redis-server <conf> --sentinel`) watching the master, once it names the master. */
async function startSentinel(settings: SentinelSettings): Promise<RedisNode> {
  const { masterName, password, sentinelPassword } = settings;
  const sentinelPort = await nodePort();
  const sentinelDir = join(settings.dir, `sentinel-${sentinelPort}`);
  mkdirSync(sentinelDir, { recursive: true });
  const conf = join(sentinelDir, 'sentinel.conf');
  writeFileSync(
    conf,
    [
      `port ${sentinelPort}`,
      'bind 127.0.0.1',
      `dir ${sentinelDir}`,
      `requirepass ${sentinelPassword}`,
      `sentinel monitor ${masterName} 127.0.0.1 ${settings.masterPort} 1`,
      `sentinel auth-pass ${masterName} ${password}`,
      `sentinel down-after-milliseconds ${masterName} 2000`,
      `sentinel failover-timeout ${masterName} 10000`,
      '',
    ].join('\n'),
  );
  const sentinel = new ManagedProcess({
    name: `redis-sentinel-${sentinelPort}`,
    command: 'redis-server',
    args: [conf, '--sentinel'],
    logFile: join(sentinelDir, 'sentinel.log'),
  });
  sentinel.start();
  const knowsMaster = waitUntil(
    `sentinel on ${sentinelPort} to know ${masterName}`,
    async () => {
      const args = [
        '-a',
        sentinelPassword,
        '--no-auth-warning',
        'sentinel',
        'get-master-addr-by-name',
        masterName,
      ];
      return (await redisCli(sentinelPort, args).catch(() => '')).includes(String(settings.masterPort));
    },
    { timeoutMs: 30_000, intervalMs: 200, abortIf: sentinel.exitedUnexpectedly },
  );
  await knowsMaster.catch(async (error: unknown) => {
    await sentinel.stop(10_000);
    throw error;
  });
  return { port: sentinelPort, process: sentinel };
}

/**
 * Waits until the sentinel lists the replica with its link to the master up: a failover asked for
 * earlier is refused (NOGOODSLAVE), since the sentinel learns of replicas from the master's INFO.
 */
async function sentinelSeesReplica(options: {
  sentinelPort: number;
  sentinelPassword: string;
  masterName: string;
  replicaPort: number;
}): Promise<void> {
  const args = [
    '-a',
    options.sentinelPassword,
    '--no-auth-warning',
    'sentinel',
    'replicas',
    options.masterName,
  ];
  await waitUntil(
    `sentinel on ${options.sentinelPort} to see the replica on ${options.replicaPort}`,
    async () => {
      const fields = (await redisCli(options.sentinelPort, args).catch(() => '')).split('\n');
      const linkAt = fields.indexOf('master-link-status');
      return fields.includes(String(options.replicaPort)) && linkAt >= 0 && fields[linkAt + 1] === 'ok';
    },
    { timeoutMs: 30_000, intervalMs: 200 },
  );
}
