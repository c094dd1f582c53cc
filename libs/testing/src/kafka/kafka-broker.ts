import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Kafka, logLevel } from 'kafkajs';
import { ManagedProcess } from '../process/managed-process';
import { waitUntil } from '../process/wait-until';
import { workspaceRoot } from '../workspace-root';
import { freePort } from '../net/free-port';

/** Version fetched by deploy/kafka/pom.xml. */
export const KAFKA_VERSION = '3.9.1';

export interface KafkaBrokerOptions {
  /** Broker port on 127.0.0.1; a free one is chosen when omitted. */
  readonly port?: number;
  readonly controllerPort?: number;
  /** Where KRaft metadata and logs live; kept across restart(), formatted only once. */
  readonly dataDir: string;
  readonly heapMb?: number;
  /** Leave the JVM running after this process exits (dev stack, `--keep`); stop it with stopDetachedBroker. */
  readonly detached?: boolean;
  readonly readyTimeoutMs?: number;
  /**
   * Listeners besides PLAINTEXT (which stays: inter-broker traffic and the readiness probe use it),
   * e.g. SSL or SASL_SSL ones; see secure-kafka.ts. Each gets a free port when `port` is omitted.
   */
  readonly extraListeners?: readonly KafkaExtraListener[];
  /** More server.properties lines: the TLS and SASL settings of the extra listeners. */
  readonly extraProperties?: string;
  /** More `kafka-storage format` arguments, e.g. `--add-scram` for SCRAM users (KRaft keeps them). */
  readonly formatArgs?: readonly string[];
}

export interface KafkaExtraListener {
  /** Listener name, upper case (SASL_SSL, MTLS, ...). */
  readonly name: string;
  readonly protocol: 'SSL' | 'SASL_SSL' | 'SASL_PLAINTEXT' | 'PLAINTEXT';
  readonly port?: number;
}

export interface KafkaBrokerHandle {
  readonly brokers: string;
  readonly port: number;
  readonly dataDir: string;
  readonly pid: number | undefined;
  /** Graceful stop (controlled shutdown). */
  stop(): Promise<void>;
  /** SIGKILL, as a crashed broker. */
  kill(): Promise<void>;
  /** Starts again on the same ports and data. */
  restart(): Promise<void>;
  /** host:port of each extra listener by name (empty without extraListeners). */
  readonly listeners: Readonly<Record<string, string>>;
}

export function kafkaLibsDir(): string {
  return join(workspaceRoot(), '.cache', 'kafka', 'libs');
}

export function kafkaJarsPresent(): boolean {
  return existsSync(join(kafkaLibsDir(), `kafka_2.13-${KAFKA_VERSION}.jar`));
}

export function assertKafkaJars(): void {
  if (!kafkaJarsPresent()) {
    throw new Error(
      `Kafka jars not found in ${kafkaLibsDir()}. Fetch them with: mvn -q -f deploy/kafka/pom.xml dependency:copy-dependencies -DincludeScope=runtime -DoutputDirectory=${kafkaLibsDir()} (npm test and npm run demo do this for you).`,
    );
  }
}

/** A KRaft cluster id: 16 random bytes in base64url, never starting with '-' (read as an option, 1 in 64). */
export function newKafkaClusterId(): string {
  return randomBytes(16).toString('base64url').replace(/^-/, 'A');
}

/** Formats the KRaft storage of dataDir/server.properties (writing dataDir/log4j.properties first). */
export function formatKafkaStorage(
  dataDir: string,
  clusterId: string,
  extraArgs: readonly string[] = [],
): void {
  writeFileSync(join(dataDir, 'log4j.properties'), LOG4J);
  execFileSync(
    'java',
    [
      '-cp',
      `${kafkaLibsDir()}/*`,
      `-Dlog4j.configuration=file:${join(dataDir, 'log4j.properties')}`,
      'kafka.tools.StorageTool',
      'format',
      '--ignore-formatted',
      '-t',
      clusterId,
      '-c',
      join(dataDir, 'server.properties'),
      ...extraArgs,
    ],
    { stdio: 'pipe' },
  );
}

/** The JVM command line of a broker whose server.properties and log4j.properties are in dataDir. */
export function kafkaJvmArgs(dataDir: string, heapMb: number): string[] {
  return [
    `-Xms${Math.min(256, heapMb)}m`,
    `-Xmx${heapMb}m`,
    '-XX:+UseG1GC',
    '-XX:MaxGCPauseMillis=20',
    '-Djava.awt.headless=true',
    `-Dlog4j.configuration=file:${join(dataDir, 'log4j.properties')}`,
    '-cp',
    `${kafkaLibsDir()}/*`,
    'kafka.Kafka',
    join(dataDir, 'server.properties'),
  ];
}

/**
 * Formats (once) and starts a single-node KRaft broker+controller from the jars that Maven
 * fetched into .cache/kafka/libs, and resolves when it answers metadata requests.
 */
export async function startKafkaBroker(options: KafkaBrokerOptions): Promise<KafkaBrokerHandle> {
  assertKafkaJars();
  const port = options.port ?? (await freePort());
  // The OS may hand the same just-released port out twice: the two listeners must differ.
  let controllerPort = options.controllerPort ?? (await freePort());
  while (controllerPort === port) controllerPort = await freePort();
  const dataDir = options.dataDir;
  const extra = await extraListenerPorts(options.extraListeners ?? [], [port, controllerPort]);
  mkdirSync(dataDir, { recursive: true });
  writeFileSync(
    join(dataDir, 'server.properties'),
    withExtraListeners(serverProperties(port, controllerPort, dataDir), extra, options.extraProperties),
  );
  writeFileSync(join(dataDir, 'log4j.properties'), LOG4J);
  if (!existsSync(join(dataDir, 'logs', 'meta.properties')))
    formatKafkaStorage(dataDir, newKafkaClusterId(), options.formatArgs);

  const brokers = `127.0.0.1:${port}`;
  const heap = options.heapMb ?? 768;
  const broker = new ManagedProcess({
    name: 'kafka',
    command: 'java',
    args: kafkaJvmArgs(dataDir, heap),
    logFile: join(dataDir, 'kafka.out'),
    detached: options.detached,
  });

  const launch = async (): Promise<void> => {
    broker.start();
    if (options.detached === true) writeFileSync(join(dataDir, 'kafka.pid'), String(broker.pid));
    const failedEarly = broker.waitForExit().then(() => {
      throw new Error(`Kafka exited during start-up; see ${join(dataDir, 'kafka.out')}`);
    });
    await Promise.race([waitForBroker(brokers, options.readyTimeoutMs ?? 60_000), failedEarly]);
  };

  await launch();
  return {
    brokers,
    port,
    dataDir,
    listeners: Object.fromEntries(extra.map((l) => [l.name, `127.0.0.1:${l.port}`])),
    get pid() {
      return broker.pid;
    },
    stop: async () => {
      await broker.stop(30_000);
    },
    kill: () => broker.kill(),
    restart: async () => {
      await broker.stop(30_000);
      await launch();
    },
  };
}

/**
 * Stops a broker started with `detached: true` (possibly by another process) from its pid file, and
 * the nodes of a detached three-node cluster in dataDir/cluster (startKafkaCluster) with it.
 */
export async function stopDetachedBroker(dataDir: string): Promise<boolean> {
  const dirs = [dataDir, ...[1, 2, 3].map((id) => kafkaClusterNodeDir(dataDir, id))];
  const stopped = await Promise.all(dirs.map((dir) => stopByPidFile(join(dir, 'kafka.pid'))));
  return stopped.some(Boolean);
}

/** Where node `id` of a three-node cluster in dataDir keeps its data (kafka-cluster.ts). */
export function kafkaClusterNodeDir(dataDir: string, id: number): string {
  return join(dataDir, 'cluster', `node-${id}`);
}

async function stopByPidFile(pidFile: string): Promise<boolean> {
  if (!existsSync(pidFile)) return false;
  const pid = Number(readFileSync(pidFile, 'utf8'));
  rmSync(pidFile);
  if (!isAlive(pid)) return false;
  process.kill(pid, 'SIGTERM');
  await waitUntil('Kafka to exit', () => !isAlive(pid), { timeoutMs: 30_000, intervalMs: 200 }).catch(() =>
    process.kill(pid, 'SIGKILL'),
  );
  return true;
}

/** The brokers of a detached broker that is still running in dataDir, if any. */
export function runningDetachedBroker(dataDir: string): string | undefined {
  const pidFile = join(dataDir, 'kafka.pid');
  if (!existsSync(pidFile) || !isAlive(Number(readFileSync(pidFile, 'utf8')))) return undefined;
  const match = /^advertised\.listeners=PLAINTEXT:\/\/([^,\s]+)/m.exec(
    readFileSync(join(dataDir, 'server.properties'), 'utf8'),
  );
  return match?.[1];
}

/** The brokers of a detached three-node cluster in dataDir whose nodes all still run, if any. */
export function runningDetachedCluster(dataDir: string): string | undefined {
  const nodes = [1, 2, 3].map((id) => runningDetachedBroker(kafkaClusterNodeDir(dataDir, id)));
  return nodes.every((n) => n !== undefined) ? nodes.join(',') : undefined;
}

export async function waitForBroker(brokers: string, timeoutMs: number): Promise<void> {
  const kafka = new Kafka({
    clientId: 'ums-broker-probe',
    brokers: brokers.split(','),
    logLevel: logLevel.NOTHING,
    retry: { retries: 0 },
    connectionTimeout: 1_000,
  });
  await waitUntil(
    `Kafka at ${brokers}`,
    async () => {
      const admin = kafka.admin();
      try {
        await admin.connect();
        const cluster = await admin.describeCluster();
        return cluster.brokers.length > 0 && cluster.controller !== null;
      } finally {
        await admin.disconnect().catch(() => undefined);
      }
    },
    { timeoutMs, intervalMs: 250 },
  );
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Extra listeners with their ports: the given ones, or free ones distinct from `taken`. */
async function extraListenerPorts(
  listeners: readonly KafkaExtraListener[],
  taken: number[],
): Promise<Array<KafkaExtraListener & { port: number }>> {
  const used = new Set(taken);
  const result: Array<KafkaExtraListener & { port: number }> = [];
  for (const listener of listeners) {
    let port = listener.port ?? (await freePort());
    while (listener.port === undefined && used.has(port)) port = await freePort();
    used.add(port);
    result.push({ ...listener, port });
  }
  return result;
}

/** server.properties with the extra listeners added to listeners, advertised.listeners and the map. */
function withExtraListeners(
  properties: string,
  listeners: ReadonlyArray<KafkaExtraListener & { port: number }>,
  extraProperties = '',
): string {
  if (listeners.length === 0) return properties + extraProperties;
  const urls = listeners.map((l) => `${l.name}://127.0.0.1:${l.port}`).join(',');
  const map = listeners.map((l) => `${l.name}:${l.protocol}`).join(',');
  return (
    properties
      .replace(/^(listeners=.*)$/m, `$1,${urls}`)
      .replace(/^(advertised\.listeners=.*)$/m, `$1,${urls}`)
      .replace(/^(listener\.security\.protocol\.map=.*)$/m, `$1,${map}`) + extraProperties
  );
}

function serverProperties(port: number, controllerPort: number, dataDir: string): string {
  return `# Written by libs/testing kafka-broker.ts: single-node KRaft for development and tests.
process.roles=broker,controller
node.id=1
controller.quorum.voters=1@127.0.0.1:${controllerPort}
listeners=PLAINTEXT://127.0.0.1:${port},CONTROLLER://127.0.0.1:${controllerPort}
advertised.listeners=PLAINTEXT://127.0.0.1:${port}
inter.broker.listener.name=PLAINTEXT
controller.listener.names=CONTROLLER
listener.security.protocol.map=CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT
log.dirs=${join(dataDir, 'logs')}
auto.create.topics.enable=false
num.partitions=1
default.replication.factor=1
min.insync.replicas=1
offsets.topic.replication.factor=1
offsets.topic.num.partitions=12
transaction.state.log.replication.factor=1
transaction.state.log.min.isr=1
group.initial.rebalance.delay.ms=0
num.network.threads=2
num.io.threads=4
log.retention.check.interval.ms=60000
`;
}

export const LOG4J = `log4j.rootLogger=WARN, stdout
log4j.logger.kafka.server.KafkaRaftServer=INFO
log4j.logger.kafka.server.BrokerServer=INFO
log4j.appender.stdout=org.apache.log4j.ConsoleAppender
log4j.appender.stdout.layout=org.apache.log4j.PatternLayout
log4j.appender.stdout.layout.ConversionPattern=[%d] %p %m (%c)%n
`;
