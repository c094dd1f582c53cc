import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AllTopics, type DeadLetterV1, type MessageStatusV1, Topics } from '@ums/contracts';
import {
  createDataSource,
  ensureTopics,
  KafkaNames,
  newOperatorKey,
  runPendingMigrations,
} from '@ums/platform';
import {
  type KafkaClusterHandle,
  type MariadbServerHandle,
  messageStatesOf,
  type RedisServerHandle,
  runRowOf,
  type RunRow,
  serviceEnv,
  type ServiceProcess,
  SimulatorClient,
  type SimulatorStats,
  startKafkaCluster,
  startMariadbServer,
  startRedisServer,
  startServiceProcess,
  TcpProxy,
  type TestMysqlSettings,
} from '@ums/testing';
import { type Consumer, Kafka, logLevel } from 'kafkajs';
import type { DataSource } from 'typeorm';

/** A run's counters as the runs row holds them. */
export type RunCounters = RunRow;

export interface SimulatorCallbackStats {
  readonly scheduled: number;
  readonly delivered: number;
  readonly failed: number;
  readonly dropped: number;
  readonly posts: number;
  readonly retries: number;
  readonly failedPosts: number;
  readonly pending: number;
}

export type SimulatorStatsWithCallbacks = SimulatorStats & { readonly callbacks: SimulatorCallbackStats };

export type ChaosService =
  'scheduler' | 'expander' | 'ingest' | 'dispatcher' | 'simulator' | `sender-${string}`;

export interface ChaosStackOptions {
  readonly label: string;
  readonly senderReplicas: readonly string[];
  /** SENDER_MAX_CLAIMED_MESSAGES of every sender replica: what one kill can leave UNKNOWN at most. */
  readonly senderMaxClaimed: number;
  /** The service whose MySQL connections go through a TCP proxy that the test can cut. */
  readonly cutOff: ChaosService;
}

/** The test's own infrastructure: a three-node Kafka cluster, a mariadbd, a redis-server, a TCP proxy. */
interface ChaosInfrastructure {
  readonly dir: string;
  readonly cluster: KafkaClusterHandle;
  readonly mariadb: MariadbServerHandle;
  readonly redis: RedisServerHandle;
  /** Between options.cutOff and the mariadbd. */
  readonly proxy: TcpProxy;
}

/**
 * The whole pipeline as processes on infrastructure of its own, so that the test may break it without
 * disturbing the machine's servers or other suites: a three-node Kafka cluster (replication 3,
 * min.insync.replicas 2), a mariadbd and a redis-server on free ports, and a TCP proxy between one
 * service and that mariadbd. campaign-scheduler, batch-expander, notification-sender replicas,
 * webhook-ingest, webhook-dispatcher and the provider simulator run on a fresh database (migrated)
 * and a fresh topic namespace. Settings are test-sized so that kills heal within seconds.
 */
export class ChaosStack {
  readonly services = new Map<ChaosService, ServiceProcess>();
  /** The scheduler's and dispatcher's operator key, made for this run; it creates the tenant's key. */
  readonly operatorKey = newOperatorKey();
  simulator!: SimulatorClient;

  private constructor(
    readonly infra: ChaosInfrastructure,
    readonly kafka: Kafka,
    readonly namespace: string,
    readonly names: KafkaNames,
    readonly database: TestMysqlSettings,
    readonly ds: DataSource,
    private readonly options: ChaosStackOptions,
  ) {}

  static async start(options: ChaosStackOptions): Promise<ChaosStack> {
    const infra = await startInfrastructure(options.label);
    try {
      const kafka = new Kafka({
        clientId: `${options.label}-test`,
        brokers: infra.cluster.brokers.split(','),
        logLevel: logLevel.NOTHING,
        // A node is killed during the test: the test's own clients ride that out.
        retry: { retries: 30, initialRetryTime: 300, maxRetryTime: 2_000 },
      });
      const namespace = `t-${randomBytes(4).toString('hex')}`;
      const names = new KafkaNames(namespace);
      // As `create-topics --replication 3` does: min.insync.replicas 2 with it.
      await ensureTopics(kafka, AllTopics, infra.cluster.replicationFactor, names);
      const database = await infra.mariadb.createDatabase(options.label);
      const ds = createDataSource({ ...database, poolSize: 3 });
      await ds.initialize();
      await runPendingMigrations(ds);
      const stack = new ChaosStack(infra, kafka, namespace, names, database, ds, options);
      await stack.startServices();
      return stack;
    } catch (error: unknown) {
      await stopInfrastructure(infra);
      throw error;
    }
  }

  get cluster(): KafkaClusterHandle {
    return this.infra.cluster;
  }

  service(name: ChaosService): ServiceProcess {
    const service = this.services.get(name);
    if (service === undefined) throw new Error(`no service ${name}`);
    return service;
  }

  url(name: ChaosService): string {
    return this.service(name).url;
  }

  /** A service that exited without being told to (a crash), if any. */
  crashed(): string[] {
    return [...this.services.values()].flatMap((s) => s.process.exitedUnexpectedly() ?? []);
  }

  /** The services that answer /health/ready with 200 now. */
  async notReady(): Promise<ChaosService[]> {
    const states = await Promise.all(
      [...this.services].map(async ([name, service]) => {
        try {
          const response = await fetch(`${service.managementUrl}/health/ready`, {
            signal: AbortSignal.timeout(2_000),
          });
          return response.status === 200 ? [] : [name];
        } catch {
          return [name];
        }
      }),
    );
    return states.flat();
  }

  async simulatorStats(credentialId: string): Promise<SimulatorStatsWithCallbacks> {
    return (await this.simulator.stats(credentialId)) as SimulatorStatsWithCallbacks;
  }

  counters(runId: string): Promise<RunCounters> {
    return runRowOf(this.ds, runId);
  }

  /** Message rows of a run by state, counted from the rows themselves. */
  statesOf(runId: string): Promise<Record<string, number>> {
    return messageStatesOf(this.ds, runId);
  }

  async rowsOf(runId: string): Promise<{ id: string; state: string }[]> {
    const rows = (await this.ds.query('SELECT id, state FROM messages WHERE run_id = ?', [runId])) as {
      id: string | number;
      state: string;
    }[];
    return rows.map((r) => ({ id: String(r.id), state: r.state }));
  }

  /** Every topic of this stack's namespace. */
  topics(): string[] {
    return AllTopics.map((t) => this.names.topic(t.name));
  }

  async stop(): Promise<void> {
    await Promise.all([...this.services.values()].map((s) => s.process.stop()));
    await this.ds.destroy().catch(() => undefined);
    await stopInfrastructure(this.infra);
  }

  private env(name: ChaosService, extra: Record<string, string>): Record<string, string> {
    const port = name === this.options.cutOff ? this.infra.proxy.port : this.database.port;
    return {
      ...serviceEnv(this.database.database, this.namespace),
      AUTH_OPERATOR_KEY: this.operatorKey,
      KAFKA_BROKERS: this.infra.cluster.brokers,
      MYSQL_HOST: this.database.host,
      MYSQL_PORT: String(port),
      // MYSQL_USER and MYSQL_PASSWORD: each service's own account, from startServiceProcess.
      REDIS_URL: this.infra.redis.url,
      // Longer than serviceEnv's 6 s: with ten processes and three JVMs on two cores a starved member
      // must not be taken for dead (a rebalance storm); a killed one's partitions still move on within 10 s.
      KAFKA_SESSION_TIMEOUT_MS: '10000',
      ...extra,
    };
  }

  private async startServices(): Promise<void> {
    const start = async (
      name: ChaosService,
      app: string,
      extra: Record<string, string>,
      instance?: string,
    ): Promise<void> => {
      this.services.set(
        name,
        // Generous: on a shared two-core machine a Node process can take a minute to come up.
        await startServiceProcess({ app, instance, env: this.env(name, extra), readyTimeoutMs: 240_000 }),
      );
    };
    await Promise.all(
      Object.entries(SERVICE_SETTINGS).map(([name, [app, extra]]) => start(name as ChaosService, app, extra)),
    );
    await Promise.all(
      this.options.senderReplicas.map((replica) =>
        start(
          `sender-${replica}`,
          'notification-sender',
          {
            RATE_LIMIT_KEY_PREFIX: `t:${this.namespace}:`,
            // The shortest claim the sender accepts for these timeouts: 2 x (1 s + 2 x 1.5 s) + 1 s.
            SENDER_CLAIM_TIMEOUT_MS: '9000',
            SENDER_CLAIM_RECORD_MARGIN_MS: '1000',
            PROVIDER_CONNECT_TIMEOUT_MS: '1000',
            PROVIDER_HTTP_TIMEOUT_MS: '1500',
            SENDER_CLAIM_SWEEP_MS: '500',
            SENDER_MAX_CLAIMED_MESSAGES: String(this.options.senderMaxClaimed),
            // No periodic refresh: the UNKNOWN rows the kills leave wait for the operator's refresh at the end,
            // which the senders serve within 5 s.
            STATUS_REFRESH_ENABLED: 'false',
            STATUS_REFRESH_INTERVAL_MS: '5000',
            STATUS_REFRESH_UNKNOWN_AFTER_MS: '15000',
          },
          replica,
        ),
      ),
    );
    this.simulator = new SimulatorClient(this.url('simulator'));
  }
}

/** The services other than the senders: app and test-sized settings. */
const SERVICE_SETTINGS: Record<string, readonly [string, Record<string, string>]> = {
  simulator: [
    'provider-simulator',
    {
      LOG_LEVEL: 'warn',
      // A real provider keeps retrying a callback for a long time (Meta: days) while our ingest or
      // Kafka is down; the simulator's default (4 attempts from 500 ms) would give up within
      // seconds. 20 attempts from 250 ms doubling span well over an hour: a provider that keeps
      // retrying, with the first retries soon enough to land within the test.
      SIMULATOR_CALLBACK_MAX_ATTEMPTS: '20',
      SIMULATOR_CALLBACK_RETRY_BASE_MS: '250',
      SIMULATOR_CALLBACK_TIMEOUT_MS: '5000',
    },
  ],
  scheduler: [
    'campaign-scheduler',
    {
      SCHEDULER_TICK_MS: '200',
      SWEEPER_TICK_MS: '200',
      // A killed expander's checkpoint goes stale within seconds and the sweeper re-requests the run.
      CHECKPOINT_DEADLINE_MS: '3000',
      RUN_MAX_ATTEMPTS: '200',
    },
  ],
  expander: [
    'batch-expander',
    {
      EXPANDER_POLL_MS: '100',
      EXPANDER_BATCHES_PER_STEP: '2',
      // A short window ahead of the senders: the expander works through the whole run, so it can be killed mid-way.
      EXPANDER_MAX_BATCHES_AHEAD: '10',
    },
  ],
  ingest: ['webhook-ingest', { INGEST_PUBLISH_TIMEOUT_MS: '2000' }],
  dispatcher: [
    'webhook-dispatcher',
    {
      WEBHOOK_INTERNAL_SUBSCRIBERS_ALLOWED: 'true',
      WEBHOOK_RETRY_DELAYS_MS: '300,600,1200,2400,4800',
      WEBHOOK_SUBSCRIBER_REFRESH_MS: '200',
      WEBHOOK_SWEEP_TICK_MS: '500',
      WEBHOOK_PENDING_LEASE_MS: '4000',
    },
  ],
};

async function startInfrastructure(label: string): Promise<ChaosInfrastructure> {
  const dir = mkdtempSync(join(tmpdir(), `ums-${label}-`));
  const started = await Promise.allSettled([
    startKafkaCluster({ dataDir: join(dir, 'kafka'), heapMb: 448 }),
    startMariadbServer({ dir: join(dir, 'mariadb') }),
    startRedisServer({ dir: join(dir, 'redis') }),
  ]);
  const [cluster, mariadb, redis] = started;
  if (cluster.status === 'rejected' || mariadb.status === 'rejected' || redis.status === 'rejected') {
    if (cluster.status === 'fulfilled') await cluster.value.stop();
    if (mariadb.status === 'fulfilled') await mariadb.value.stop();
    if (redis.status === 'fulfilled') await redis.value.stop();
    rmSync(dir, { recursive: true, force: true });
    const failed = started.find((s) => s.status === 'rejected');
    throw failed?.reason;
  }
  const proxy = await TcpProxy.start({ targetHost: mariadb.value.host, targetPort: mariadb.value.port });
  return { dir, cluster: cluster.value, mariadb: mariadb.value, redis: redis.value, proxy };
}

/** Stops everything the test started, each even when another fails to stop. */
async function stopInfrastructure(infra: ChaosInfrastructure): Promise<void> {
  await Promise.allSettled([
    infra.proxy.stop(),
    infra.cluster.stop(),
    infra.mariadb.stop(),
    infra.redis.stop(),
  ]);
  rmSync(infra.dir, { recursive: true, force: true });
}

/**
 * Reads a topic from the beginning in a group of its own, parsing each record's JSON value.
 */
abstract class TopicRecorder<V> {
  private consumer: Consumer | undefined;

  protected async listen(kafka: Kafka, topic: string, label: string): Promise<void> {
    const consumer = kafka.consumer({
      groupId: `chaos-${label}-${randomBytes(3).toString('hex')}`,
      sessionTimeout: 10_000,
      heartbeatInterval: 1_000,
    });
    this.consumer = consumer;
    await consumer.connect();
    await consumer.subscribe({ topic, fromBeginning: true });
    await consumer.run({
      partitionsConsumedConcurrently: 12,
      eachMessage: ({ message }) => {
        if (message.value !== null) this.record(JSON.parse(message.value.toString('utf8')) as V);
        return Promise.resolve();
      },
    });
  }

  async stop(): Promise<void> {
    await this.consumer?.disconnect();
  }

  protected abstract record(value: V): void;
}

/**
 * Reads the status topic from the beginning and keeps each event once by its event id (a re-published
 * event has the same id), counting the copies.
 */
export class StatusTopicRecorder extends TopicRecorder<MessageStatusV1> {
  readonly events = new Map<string, MessageStatusV1>();
  /** Statuses seen per message id. */
  readonly statuses = new Map<string, Set<string>>();
  copies = 0;

  static async start(kafka: Kafka, names: KafkaNames): Promise<StatusTopicRecorder> {
    const recorder = new StatusTopicRecorder();
    await recorder.listen(kafka, names.topic(Topics.messageStatus.name), 'status-recorder');
    return recorder;
  }

  protected record(event: MessageStatusV1): void {
    this.copies++;
    this.events.set(event.eventId, event);
    const seen = this.statuses.get(event.messageId) ?? new Set<string>();
    seen.add(event.status);
    this.statuses.set(event.messageId, seen);
  }
}

/** Every dead letter of the namespace: in this test every record is valid, so each one is a finding. */
export class DeadLetterRecorder extends TopicRecorder<DeadLetterV1> {
  readonly letters: DeadLetterV1[] = [];

  static async start(kafka: Kafka, names: KafkaNames): Promise<DeadLetterRecorder> {
    const recorder = new DeadLetterRecorder();
    await recorder.listen(kafka, names.topic(Topics.deadLetters.name), 'dead-letter-recorder');
    return recorder;
  }

  /** Dead letters by source topic (namespace left off) and error code. */
  summary(): Record<string, number> {
    const counts: Record<string, number> = {};
    for (const letter of this.letters) {
      const key = `${letter.sourceTopic.replace(/^.*?(ums\.)/, '$1')}:${letter.errorCode}`;
      counts[key] = (counts[key] ?? 0) + 1;
    }
    return counts;
  }

  protected record(letter: DeadLetterV1): void {
    this.letters.push(letter);
  }
}

export {
  createTenantApiKey,
  type KeyedApi,
  keyedApi,
  registerInternalSubscriber,
} from '../stack/pipeline-campaign';
