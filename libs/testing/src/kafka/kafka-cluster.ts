import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { type Admin, Kafka, logLevel } from 'kafkajs';
import { ManagedProcess } from '../process/managed-process';
import { waitUntil } from '../process/wait-until';
import { freePort } from '../net/free-port';
import {
  assertKafkaJars,
  formatKafkaStorage,
  kafkaClusterNodeDir,
  kafkaJvmArgs,
  LOG4J,
  newKafkaClusterId,
} from './kafka-broker';

/** Replication of every topic on the cluster: one copy per node. */
export const CLUSTER_REPLICATION_FACTOR = 3;
/** Acknowledged (acks=-1) writes are on two nodes at least: one node may die without losing any. */
export const CLUSTER_MIN_INSYNC_REPLICAS = 2;

export interface KafkaClusterOptions {
  /** Each node keeps its KRaft metadata and logs in dataDir/cluster/node-<id>; formatted only once. */
  readonly dataDir: string;
  /** Heap of each JVM (default 448 MB): three of them share the machine with everything else. */
  readonly heapMb?: number;
  /** Leave the JVMs running after this process exits (dev stack, `--keep`); stopDetachedBroker stops them. */
  readonly detached?: boolean;
  readonly readyTimeoutMs?: number;
}

export interface KafkaClusterNode {
  /** node.id, 1 to 3. */
  readonly id: number;
  /** This node's client listener, host:port. */
  readonly brokers: string;
  readonly port: number;
  readonly pid: number | undefined;
  readonly running: boolean;
  /** Graceful stop (controlled shutdown: its partitions' leadership moves first). */
  stop(): Promise<void>;
  /** SIGKILL, as a crashed broker. */
  kill(): Promise<void>;
  /** Starts it again (after stop or kill) on the same ports and data; resolves when the cluster lists it again. */
  restart(): Promise<void>;
}

export interface KafkaClusterHandle {
  /** Every node's client listener, comma-separated (KAFKA_BROKERS). */
  readonly brokers: string;
  readonly nodes: readonly KafkaClusterNode[];
  readonly replicationFactor: number;
  node(id: number): KafkaClusterNode;
  /** Leader (-1: none), replicas and in-sync replicas of each partition of a topic, by node id. */
  partitionsOf(topic: string): Promise<PartitionState[]>;
  /** The node that leads topic-partition now, from the cluster's metadata (kafkajs fetchTopicMetadata). */
  leaderOf(topic: string, partition: number): Promise<KafkaClusterNode>;
  /** Partitions of these topics with fewer in-sync replicas than replicas (0: every copy caught up). */
  underReplicated(topics: readonly string[]): Promise<number>;
  /** Stops every node: the brokers first, all at once, then SIGKILL for any still up after the timeout. */
  stop(): Promise<void>;
}

export interface PartitionState {
  readonly partition: number;
  readonly leader: number;
  readonly replicas: readonly number[];
  readonly isr: readonly number[];
}

interface NodePorts {
  readonly id: number;
  readonly port: number;
  readonly controllerPort: number;
}

/**
 * Formats (once) and starts a three-node KRaft cluster on loopback: each JVM a broker and a
 * controller (a three-voter quorum), topics replicated three times by default with
 * `min.insync.replicas` 2, unclean leader election off, the internal topics replicated three
 * times too. Resolves when all three nodes are registered and a controller is elected.
 */
export async function startKafkaCluster(options: KafkaClusterOptions): Promise<KafkaClusterHandle> {
  assertKafkaJars();
  const ports = await nodePorts(options.dataDir);
  const clusterId = newKafkaClusterId();
  const readyTimeoutMs = options.readyTimeoutMs ?? 90_000;
  const brokers = ports.map((p) => `127.0.0.1:${p.port}`).join(',');
  const processes = ports.map((node) => prepareNode({ node, all: ports, clusterId, options }));
  // Asks the nodes that run (a client given a dead seed broker can fail to connect at all).
  const probe = (): Kafka =>
    probeClient(
      ports.filter((_, index) => processes[index]?.running === true).map((p) => `127.0.0.1:${p.port}`),
    );
  const launch = (index: number): Promise<void> => {
    const proc = processes[index] as ManagedProcess;
    proc.start();
    const dir = kafkaClusterNodeDir(options.dataDir, index + 1);
    if (options.detached === true) writeFileSync(join(dir, 'kafka.pid'), String(proc.pid));
    return proc.waitForExit().then(() => {
      throw new Error(`Kafka node ${index + 1} exited during start-up; see ${join(dir, 'kafka.out')}`);
    });
  };
  const registered = async (ids: readonly number[]): Promise<void> => {
    await waitUntil(
      `Kafka nodes ${ids.join(',')} registered at ${brokers}`,
      () => withAdmin(probe(), async (admin) => registeredIds(admin, ids)),
      { timeoutMs: readyTimeoutMs, intervalMs: 250 },
    );
  };

  // All at once: a controller quorum needs two of its three voters to elect a leader.
  const failedEarly = Promise.race(processes.map((_, index) => launch(index)));
  try {
    await Promise.race([registered([1, 2, 3]), failedEarly]);
  } catch (error: unknown) {
    await Promise.all(processes.map((p) => p.stop(5_000)));
    throw error;
  }
  failedEarly.catch(() => undefined);
  const nodes = ports.map((p, index) =>
    nodeHandle(p, processes[index] as ManagedProcess, async () => {
      const exited = launch(index);
      await Promise.race([registered([p.id]), exited]);
      exited.catch(() => undefined);
    }),
  );
  return clusterHandle({ brokers, nodes, processes, probe });
}

/** Writes a node's configuration, formats its storage once, and answers its (not yet started) JVM. */
function prepareNode(parts: {
  node: NodePorts;
  all: readonly NodePorts[];
  clusterId: string;
  options: KafkaClusterOptions;
}): ManagedProcess {
  const { node, all, clusterId, options } = parts;
  const dir = kafkaClusterNodeDir(options.dataDir, node.id);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'server.properties'), clusterServerProperties(node, all, dir));
  writeFileSync(join(dir, 'log4j.properties'), LOG4J);
  if (!existsSync(join(dir, 'logs', 'meta.properties'))) formatKafkaStorage(dir, clusterId);
  return new ManagedProcess({
    name: `kafka-${node.id}`,
    command: 'java',
    args: kafkaJvmArgs(dir, options.heapMb ?? 448),
    logFile: join(dir, 'kafka.out'),
    detached: options.detached,
  });
}

/** One node of the handle; `launch` starts its JVM and resolves once the cluster lists it. */
function nodeHandle(ports: NodePorts, proc: ManagedProcess, launch: () => Promise<void>): KafkaClusterNode {
  return {
    id: ports.id,
    port: ports.port,
    brokers: `127.0.0.1:${ports.port}`,
    get pid() {
      return proc.pid;
    },
    get running() {
      return proc.running;
    },
    stop: async () => {
      await proc.stop(30_000);
    },
    kill: () => proc.kill(),
    restart: async () => {
      await proc.stop(30_000);
      await launch();
    },
  };
}

function clusterHandle(parts: {
  brokers: string;
  nodes: readonly KafkaClusterNode[];
  processes: readonly ManagedProcess[];
  probe: () => Kafka;
}): KafkaClusterHandle {
  const { brokers, nodes, processes, probe } = parts;
  const node = (id: number): KafkaClusterNode => {
    const found = nodes.find((n) => n.id === id);
    if (found === undefined) throw new Error(`no Kafka node ${id}`);
    return found;
  };
  return {
    brokers,
    nodes,
    replicationFactor: CLUSTER_REPLICATION_FACTOR,
    node,
    partitionsOf: (topic) => partitionsOf(probe(), topic),
    leaderOf: async (topic, partition) => {
      const found = (await partitionsOf(probe(), topic)).find((p) => p.partition === partition);
      if (found === undefined || found.leader < 0)
        throw new Error(`${topic}[${partition}] has no leader now`);
      return node(found.leader);
    },
    underReplicated: (topics) =>
      withAdmin(probe(), async (admin) => {
        const metadata = await admin.fetchTopicMetadata({ topics: [...topics] });
        return metadata.topics.flatMap((t) => t.partitions).filter((p) => p.isr.length < p.replicas.length)
          .length;
      }),
    stop: async () => {
      await Promise.all(processes.map((p) => p.stop(20_000)));
    },
  };
}

/** Ports for three nodes: the ones a previous start wrote (a formatted cluster keeps its voters), or free ones. */
async function nodePorts(dataDir: string): Promise<NodePorts[]> {
  const previous = [1, 2, 3].map((id) => {
    const file = join(kafkaClusterNodeDir(dataDir, id), 'server.properties');
    if (!existsSync(file)) return undefined;
    const text = readFileSync(file, 'utf8');
    const port = /^listeners=PLAINTEXT:\/\/127\.0\.0\.1:(\d+),CONTROLLER:\/\/127\.0\.0\.1:(\d+)$/m.exec(text);
    return port === null ? undefined : { id, port: Number(port[1]), controllerPort: Number(port[2]) };
  });
  if (previous.every((p) => p !== undefined)) return previous as NodePorts[];
  // The OS may hand the same just-released port out twice: all six listeners must differ.
  const taken = new Set<number>();
  const distinct = async (): Promise<number> => {
    let port = await freePort();
    while (taken.has(port)) port = await freePort();
    taken.add(port);
    return port;
  };
  const ports: NodePorts[] = [];
  for (const id of [1, 2, 3]) ports.push({ id, port: await distinct(), controllerPort: await distinct() });
  return ports;
}

function partitionsOf(kafka: Kafka, topic: string): Promise<PartitionState[]> {
  return withAdmin(kafka, async (admin) => {
    const { topics } = await admin.fetchTopicMetadata({ topics: [topic] });
    return (topics[0]?.partitions ?? [])
      .map((p) => ({ partition: p.partitionId, leader: p.leader, replicas: p.replicas, isr: p.isr }))
      .sort((a, b) => a.partition - b.partition);
  });
}

async function registeredIds(admin: Admin, ids: readonly number[]): Promise<boolean> {
  const cluster = await admin.describeCluster();
  const present = new Set(cluster.brokers.map((b) => b.nodeId));
  return cluster.controller !== null && ids.every((id) => present.has(id));
}

function probeClient(brokers: readonly string[]): Kafka {
  return new Kafka({
    clientId: 'ums-cluster-probe',
    brokers: [...brokers],
    logLevel: logLevel.NOTHING,
    retry: { retries: 2, initialRetryTime: 100 },
    connectionTimeout: 1_000,
  });
}

async function withAdmin<T>(kafka: Kafka, work: (admin: Admin) => Promise<T>): Promise<T> {
  const admin = kafka.admin();
  await admin.connect();
  try {
    return await work(admin);
  } finally {
    await admin.disconnect().catch(() => undefined);
  }
}

function clusterServerProperties(node: NodePorts, all: readonly NodePorts[], dir: string): string {
  const voters = all.map((n) => `${n.id}@127.0.0.1:${n.controllerPort}`).join(',');
  return `# Written by libs/testing kafka-cluster.ts: node ${node.id} of a three-node KRaft cluster on loopback.
process.roles=broker,controller
node.id=${node.id}
controller.quorum.voters=${voters}
listeners=PLAINTEXT://127.0.0.1:${node.port},CONTROLLER://127.0.0.1:${node.controllerPort}
advertised.listeners=PLAINTEXT://127.0.0.1:${node.port}
inter.broker.listener.name=PLAINTEXT
controller.listener.names=CONTROLLER
listener.security.protocol.map=CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT
log.dirs=${join(dir, 'logs')}
auto.create.topics.enable=false
num.partitions=1
default.replication.factor=${CLUSTER_REPLICATION_FACTOR}
min.insync.replicas=${CLUSTER_MIN_INSYNC_REPLICAS}
unclean.leader.election.enable=false
offsets.topic.replication.factor=${CLUSTER_REPLICATION_FACTOR}
offsets.topic.num.partitions=12
transaction.state.log.replication.factor=${CLUSTER_REPLICATION_FACTOR}
transaction.state.log.min.isr=${CLUSTER_MIN_INSYNC_REPLICAS}
group.initial.rebalance.delay.ms=0
# Kafka's own session timeout (9 s): a killed node's partitions are led elsewhere within about that. A
# shorter one fenced live nodes whose heartbeats a starved two-core machine delayed.
broker.session.timeout.ms=9000
broker.heartbeat.interval.ms=2000
num.network.threads=2
num.io.threads=2
num.replica.fetchers=1
log.retention.check.interval.ms=60000
`;
}
