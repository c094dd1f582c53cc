import { rmSync } from 'node:fs';
import { KafkaConfig, kafkaConnectionOptions, loadConfig, processEnv } from '@ums/platform';
import { startKafkaBroker, startKafkaCluster } from '@ums/testing';
import { Kafka, logLevel } from 'kafkajs';
import { kafkaNodesArg } from '../stack/kafka-nodes-arg';

export interface BenchKafka {
  /** Replication of the topics the bench creates: one copy per node (`--brokers 3`: 3). */
  readonly replication: 1 | 3;
  /** The JVM of each node started here (`kafka`, or `kafka-1` to `kafka-3`); empty when KAFKA_BROKERS was given. */
  readonly pids: Readonly<Record<string, number | undefined>>;
  stop(): Promise<void>;
}

/**
 * The Kafka a stage benchmark runs on: the cluster KAFKA_BROKERS names, or one started here in dataDir
 * (a single broker, or three nodes with `--brokers 3`), whose brokers it then sets as KAFKA_BROKERS.
 * Stopping one started here deletes dataDir: a 1,000,000-message stage leaves most of a GB of logs.
 */
export async function startBenchKafka(dataDir: string): Promise<BenchKafka> {
  const replication = kafkaNodesArg(process.argv);
  if ((process.env['KAFKA_BROKERS'] ?? '') !== '')
    return { replication, pids: {}, stop: () => Promise.resolve() };
  removeDataDir(dataDir);
  if (replication === 3) {
    const cluster = await startKafkaCluster({ dataDir, heapMb: 512 });
    process.env['KAFKA_BROKERS'] = cluster.brokers;
    return {
      replication,
      pids: Object.fromEntries(cluster.nodes.map((node) => [`kafka-${node.id}`, node.pid])),
      stop: () => cluster.stop().finally(() => removeDataDir(dataDir)),
    };
  }
  const broker = await startKafkaBroker({ dataDir, heapMb: 768 });
  process.env['KAFKA_BROKERS'] = broker.brokers;
  return {
    replication,
    pids: { kafka: broker.pid },
    stop: () => broker.stop().finally(() => removeDataDir(dataDir)),
  };
}

function removeDataDir(dataDir: string): void {
  rmSync(dataDir, { recursive: true, force: true });
}

/**
 * A client of the bench's own on the cluster of KAFKA_BROKERS, with the same TLS and SASL settings
 * (KAFKA_SECURITY_PROTOCOL, ...) as the services it starts, which inherit this process's environment.
 */
export function benchKafkaClient(clientId: string): Kafka {
  const config = loadConfig(KafkaConfig, processEnv());
  return new Kafka({ clientId, ...kafkaConnectionOptions(config), logLevel: logLevel.NOTHING });
}
