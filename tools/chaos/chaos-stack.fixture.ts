import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AllTopics, type MessageStatusV1, Topics } from '@ums/contracts';
import {
  createDataSource,
  ensureTopics,
  KafkaNames,
  newOperatorKey,
  runPendingMigrations,
} from '@ums/platform';
import {
  createTestDatabase,
  messageStatesOf,
  runRowOf,
  type RunRow,
  type KafkaBrokerHandle,
  serviceEnv,
  type ServiceProcess,
  SimulatorClient,
  type SimulatorStats,
  startKafkaBroker,
  startServiceProcess,
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

export interface ChaosStackOptions {
  readonly label: string;
  readonly senderReplicas: readonly string[];
  /** SENDER_MAX_CLAIMED_MESSAGES of every sender replica: what one kill can leave UNKNOWN at most. */
  readonly senderMaxClaimed: number;
}

export type ChaosService =
  'scheduler' | 'expander' | 'ingest' | 'dispatcher' | 'simulator' | `sender-${string}`;

/**
 * The whole pipeline as processes on a Kafka broker of its own (the shared broker of the Jest run
 * serves other suites and must never be restarted): campaign-scheduler, batch-expander, notification
 * sender replicas, webhook-ingest, webhook-dispatcher and the provider simulator, on a fresh database
 * (migrated) and a fresh topic namespace. Settings are test-sized so that kills heal within seconds.
 */
export class ChaosStack {
  readonly services = new Map<ChaosService, ServiceProcess>();
  /** The scheduler's and dispatcher's operator key, made for this run; it creates the tenant's key. */
  readonly operatorKey = newOperatorKey();
  simulator!: SimulatorClient;

  private constructor(
    readonly broker: KafkaBrokerHandle,
    private readonly brokerDir: string,
    readonly kafka: Kafka,
    readonly namespace: string,
    readonly names: KafkaNames,
    readonly db: Awaited<ReturnType<typeof createTestDatabase>>,
    readonly ds: DataSource,
    private readonly options: ChaosStackOptions,
  ) {}

  static async start(options: ChaosStackOptions): Promise<ChaosStack> {
    const brokerDir = mkdtempSync(join(tmpdir(), `ums-${options.label}-kafka-`));
    const broker = await startKafkaBroker({ dataDir: brokerDir, heapMb: 512 });
    const kafka = new Kafka({
      clientId: `${options.label}-test`,
      brokers: [broker.brokers],
      logLevel: logLevel.NOTHING,
      // The broker is restarted during the test: the test's own clients ride that out.
      retry: { retries: 30, initialRetryTime: 300, maxRetryTime: 2_000 },
    });
    const namespace = `t-${randomBytes(4).toString('hex')}`;
    const names = new KafkaNames(namespace);
    await ensureTopics(kafka, AllTopics, 1, names);
    const db = await createTestDatabase(options.label);
    const ds = createDataSource(db.settings);
    await ds.initialize();
    await runPendingMigrations(ds);
    const stack = new ChaosStack(broker, brokerDir, kafka, namespace, names, db, ds, options);
    await stack.startServices();
    return stack;
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

  async stop(): Promise<void> {
    await Promise.all([...this.services.values()].map((s) => s.process.stop()));
    await this.broker.stop();
    await this.ds.destroy();
    await this.db.drop();
    rmSync(this.brokerDir, { recursive: true, force: true });
  }

  private env(extra: Record<string, string>): Record<string, string> {
    return {
      ...serviceEnv(this.db.settings.database, this.namespace),
      AUTH_OPERATOR_KEY: this.operatorKey,
      KAFKA_BROKERS: this.broker.brokers,
      // Longer than serviceEnv's 6 s: with ten processes on two cores a starved member must not be
      // taken for dead (a rebalance storm); a killed one's partitions still move on within 10 s.
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
        await startServiceProcess({ app, instance, env: this.env(extra), readyTimeoutMs: 240_000 }),
      );
    };
    await Promise.all([
      start('simulator', 'provider-simulator', {
        LOG_LEVEL: 'warn',
        // A real provider keeps retrying a callback for a long time (Meta: days) while our ingest or
        // Kafka is down; the simulator's default (4 attempts from 500 ms) would give up within
        // seconds. 20 attempts from 250 ms doubling span well over an hour: a provider that keeps
        // retrying, with the first retries soon enough to land within the test.
        SIMULATOR_CALLBACK_MAX_ATTEMPTS: '20',
        SIMULATOR_CALLBACK_RETRY_BASE_MS: '250',
        SIMULATOR_CALLBACK_TIMEOUT_MS: '5000',
      }),
      start('scheduler', 'campaign-scheduler', {
        SCHEDULER_TICK_MS: '200',
        SWEEPER_TICK_MS: '200',
        // A killed expander's checkpoint goes stale within seconds and the sweeper re-requests the run.
        CHECKPOINT_DEADLINE_MS: '3000',
        RUN_MAX_ATTEMPTS: '200',
      }),
      start('expander', 'batch-expander', {
        EXPANDER_POLL_MS: '100',
        EXPANDER_BATCHES_PER_STEP: '2',
        // A short window ahead of the senders: the expander works through the whole run, so it can be killed mid-way.
        EXPANDER_MAX_BATCHES_AHEAD: '10',
      }),
      start('ingest', 'webhook-ingest', { INGEST_PUBLISH_TIMEOUT_MS: '2000' }),
      start('dispatcher', 'webhook-dispatcher', {
        WEBHOOK_INTERNAL_SUBSCRIBERS_ALLOWED: 'true',
        WEBHOOK_RETRY_DELAYS_MS: '300,600,1200,2400,4800',
        WEBHOOK_RETRY_JITTER: '0.1',
        WEBHOOK_SUBSCRIBER_REFRESH_MS: '200',
        WEBHOOK_SWEEP_TICK_MS: '500',
        WEBHOOK_PENDING_LEASE_MS: '4000',
      }),
    ]);
    await Promise.all(
      this.options.senderReplicas.map((replica) =>
        start(
          `sender-${replica}`,
          'notification-sender',
          {
            RATE_LIMIT_KEY_PREFIX: `t:${this.namespace}:`,
            SENDER_CLAIM_TIMEOUT_MS: '5000',
            SENDER_CLAIM_SWEEP_MS: '500',
            SENDER_MAX_CLAIMED_MESSAGES: String(this.options.senderMaxClaimed),
          },
          replica,
        ),
      ),
    );
    this.simulator = new SimulatorClient(this.url('simulator'));
  }
}

/**
 * Reads the status topic from the beginning and keeps each event once by its event id (a re-published
 * event has the same id), counting the copies.
 */
export class StatusTopicRecorder {
  readonly events = new Map<string, MessageStatusV1>();
  /** Statuses seen per message id. */
  readonly statuses = new Map<string, Set<string>>();
  copies = 0;

  private constructor(private readonly consumer: Consumer) {}

  static async start(kafka: Kafka, names: KafkaNames): Promise<StatusTopicRecorder> {
    const consumer = kafka.consumer({
      groupId: `chaos-status-recorder-${randomBytes(3).toString('hex')}`,
      sessionTimeout: 10_000,
      heartbeatInterval: 1_000,
    });
    const recorder = new StatusTopicRecorder(consumer);
    await consumer.connect();
    await consumer.subscribe({ topic: names.topic(Topics.messageStatus.name), fromBeginning: true });
    await consumer.run({
      partitionsConsumedConcurrently: 12,
      eachMessage: ({ message }) => {
        if (message.value !== null)
          recorder.record(JSON.parse(message.value.toString('utf8')) as MessageStatusV1);
        return Promise.resolve();
      },
    });
    return recorder;
  }

  async stop(): Promise<void> {
    await this.consumer.disconnect();
  }

  private record(event: MessageStatusV1): void {
    this.copies++;
    this.events.set(event.eventId, event);
    const seen = this.statuses.get(event.messageId) ?? new Set<string>();
    seen.add(event.status);
    this.statuses.set(event.messageId, seen);
  }
}

export { createTenantApiKey, keyedApi, registerInternalSubscriber } from '../stack/pipeline-campaign';
