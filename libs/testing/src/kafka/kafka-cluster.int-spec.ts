import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigResourceTypes, type Consumer, Kafka, logLevel, type Producer } from 'kafkajs';
import { waitUntil } from '../process/wait-until';
import { type KafkaClusterHandle, startKafkaCluster } from './kafka-cluster';

const TOPIC = 'ums.test.cluster.v1';
const PARTITIONS = 3;
const BATCH = 20;

function isAlive(pid: number | undefined): boolean {
  if (pid === undefined) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/**
 * Sends batches with acks=-1 until told to stop, keeping every value the cluster acknowledged. After a
 * failed send it starts a fresh producer (a new producer id): kafkajs' idempotent producer can be left
 * with sequence numbers the new leader refuses (OUT_OF_ORDER_SEQUENCE_NUMBER) after a failover.
 */
class AckedProducer {
  readonly acknowledged: string[] = [];
  readonly errors = new Map<string, number>();
  private producer: Producer | undefined;
  private running = true;
  private loop: Promise<void> = Promise.resolve();
  private next = 0;

  constructor(private readonly kafka: Kafka) {}

  start(): void {
    this.loop = (async () => {
      while (this.running) await this.sendOne();
    })();
  }

  async stop(): Promise<void> {
    this.running = false;
    await this.loop;
    await this.producer?.disconnect().catch(() => undefined);
  }

  private async sendOne(): Promise<void> {
    const values = Array.from({ length: BATCH }, () => `m-${this.next++}`);
    try {
      if (this.producer === undefined) {
        this.producer = this.kafka.producer({ idempotent: true, maxInFlightRequests: 1 });
        await this.producer.connect();
      }
      await this.producer.send({
        topic: TOPIC,
        acks: -1,
        messages: values.map((value) => ({ key: value, value })),
      });
      this.acknowledged.push(...values);
    } catch (error: unknown) {
      // Not acknowledged: the cluster promised nothing for these.
      const type = error instanceof Error ? ((error as { type?: string }).type ?? error.name) : 'unknown';
      this.errors.set(type, (this.errors.get(type) ?? 0) + 1);
      const failed = this.producer;
      this.producer = undefined;
      await failed?.disconnect().catch(() => undefined);
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }
}

/** Reads the topic from the beginning with a new group until every wanted value is seen (or 60 s pass). */
async function readAll(kafka: Kafka, groupId: string, wanted: ReadonlySet<string>): Promise<Set<string>> {
  const seen = new Set<string>();
  const reader = kafka.consumer({ groupId, sessionTimeout: 10_000 });
  await reader.connect();
  try {
    await reader.subscribe({ topic: TOPIC, fromBeginning: true });
    await reader.run({
      eachMessage: ({ message }) => {
        if (message.value !== null) seen.add(message.value.toString('utf8'));
        return Promise.resolve();
      },
    });
    await waitUntil('the whole topic read back', () => [...wanted].every((v) => seen.has(v)), {
      timeoutMs: 60_000,
      intervalMs: 250,
    }).catch(() => false);
  } finally {
    await reader.disconnect();
  }
  return seen;
}

// A cluster of its own (three JVMs): the Jest run's shared broker is never disturbed.
describe('startKafkaCluster', () => {
  let dataDir: string;
  let cluster: KafkaClusterHandle | undefined;
  let kafka: Kafka;
  let writer: AckedProducer | undefined;
  let consumer: Consumer | undefined;

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'ums-cluster-'));
    cluster = await startKafkaCluster({ dataDir, heapMb: 384 });
    kafka = new Kafka({
      clientId: 'cluster-test',
      brokers: cluster.brokers.split(','),
      logLevel: logLevel.NOTHING,
      retry: { retries: 30, initialRetryTime: 200, maxRetryTime: 2_000 },
    });
  }, 180_000);

  afterAll(async () => {
    await consumer?.disconnect().catch(() => undefined);
    await writer?.stop();
    await cluster?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }, 90_000);

  it('replicates three times with min.insync.replicas 2 and no unclean leader election', async () => {
    const admin = kafka.admin();
    await admin.connect();
    try {
      // No replication factor given: the cluster's default applies.
      // kafkajs' own leader wait gives up on UNKNOWN_TOPIC_OR_PARTITION right after creation.
      await admin.createTopics({
        topics: [{ topic: TOPIC, numPartitions: PARTITIONS }],
        waitForLeaders: false,
      });
      const topics = await waitUntil(
        'a leader for every partition',
        async () => {
          const metadata = await admin.fetchTopicMetadata({ topics: [TOPIC] });
          const partitions = metadata.topics[0]?.partitions ?? [];
          return (
            partitions.length === PARTITIONS && partitions.every((p) => p.leader >= 0) && metadata.topics
          );
        },
        { timeoutMs: 30_000, intervalMs: 250 },
      );
      expect(topics[0]?.partitions.map((p) => p.replicas.length)).toEqual([3, 3, 3]);
      // Every node answers once the new topic's metadata has reached it.
      const described = await waitUntil(
        'the topic configuration',
        () =>
          admin.describeConfigs({
            includeSynonyms: false,
            resources: [
              {
                type: ConfigResourceTypes.TOPIC,
                name: TOPIC,
                configNames: ['min.insync.replicas', 'unclean.leader.election.enable'],
              },
            ],
          }),
        { timeoutMs: 30_000, intervalMs: 250 },
      );
      const entries = Object.fromEntries(
        (described.resources[0]?.configEntries ?? []).map((e) => [e.configName, e.configValue]),
      );
      expect(entries).toEqual({ 'min.insync.replicas': '2', 'unclean.leader.election.enable': 'false' });
    } finally {
      await admin.disconnect();
    }
  }, 60_000);

  it('loses nothing acknowledged with acks=-1 when the partition leader is killed', async () => {
    const running = cluster as KafkaClusterHandle;
    const seen = new Set<string>();
    consumer = kafka.consumer({ groupId: 'cluster-test-reader', sessionTimeout: 10_000 });
    await consumer.connect();
    await consumer.subscribe({ topic: TOPIC, fromBeginning: true });
    await consumer.run({
      eachMessage: ({ message }) => {
        if (message.value !== null) seen.add(message.value.toString('utf8'));
        return Promise.resolve();
      },
    });
    const acked = new AckedProducer(kafka);
    writer = acked;
    acked.start();

    await waitUntil('1,000 acknowledged before the kill', () => acked.acknowledged.length >= 1_000, {
      timeoutMs: 60_000,
    });
    const leader = await running.leaderOf(TOPIC, 0);
    const killedPid = leader.pid;
    await leader.kill();
    const atKill = acked.acknowledged.length;
    // The partition gets a new leader among the in-sync copies, and writes go on there.
    let lastSeen = 'nothing';
    const newLeader = await waitUntil(
      'a new leader for partition 0',
      async () => {
        const partitions = await running.partitionsOf(TOPIC);
        lastSeen = JSON.stringify(partitions);
        const now = partitions.find((p) => p.partition === 0)?.leader ?? -1;
        return now >= 0 && now !== leader.id ? running.node(now) : undefined;
      },
      { timeoutMs: 60_000, intervalMs: 250 },
    ).catch((error: unknown) => {
      throw new Error(`${String(error)}; partitions last seen: ${lastSeen}`);
    });
    await waitUntil(
      '1,000 more acknowledged with one node down',
      () => acked.acknowledged.length >= atKill + 1_000,
      {
        timeoutMs: 90_000,
      },
    );
    await leader.restart();
    await waitUntil('every copy back in sync', async () => (await running.underReplicated([TOPIC])) === 0, {
      timeoutMs: 90_000,
      intervalMs: 500,
    });
    await acked.stop();

    await waitUntil(
      'every acknowledged value read back',
      () => acked.acknowledged.every((value) => seen.has(value)),
      { timeoutMs: 60_000, intervalMs: 250 },
    ).catch(() => false);
    const missedLive = acked.acknowledged.filter((value) => !seen.has(value));
    // What the log holds decides, read afresh once every copy is back in sync: a value the live reader
    // missed during the failover but that is on the partition is not lost.
    const inLog = await readAll(kafka, 'cluster-test-readback', new Set(acked.acknowledged));
    const lost = acked.acknowledged.filter((value) => !inLog.has(value));
    process.stdout.write(
      `cluster figures: killed node ${leader.id}, new leader node ${newLeader.id}, acknowledged ` +
        `${acked.acknowledged.length} (${atKill} before the kill), failed sends ` +
        `${JSON.stringify(Object.fromEntries(acked.errors))}, missed by the live reader ${missedLive.length}, ` +
        `lost ${lost.length}${lost.length > 0 ? ` (${lost.slice(0, 20).join(',')})` : ''}\n`,
    );
    expect(isAlive(killedPid)).toBe(false);
    expect(leader.running).toBe(true);
    expect(lost).toEqual([]);
  }, 300_000);

  it('stops all three JVMs', async () => {
    const running = cluster as KafkaClusterHandle;
    await consumer?.disconnect();
    consumer = undefined;
    await writer?.stop();
    writer = undefined;
    const pids = running.nodes.map((n) => n.pid);
    await running.stop();
    expect(pids.map(isAlive)).toEqual([false, false, false]);
    expect(running.nodes.map((n) => n.running)).toEqual([false, false, false]);
  }, 90_000);
});
