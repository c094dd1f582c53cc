import { randomBytes } from 'node:crypto';
import { AllTopics, type MessageStatusV1, Topics } from '@ums/contracts';
import { createDataSource, ensureTopics, KafkaNames, runPendingMigrations } from '@ums/platform';
import {
  createTestDatabase,
  messageStatesOf,
  runRowOf,
  type RunRow,
  serviceEnv,
  type ServiceProcess,
  SimulatorClient,
  startServiceProcess,
  testBrokers,
  testKafka,
} from '@ums/testing';
import { type Consumer, Kafka, logLevel } from 'kafkajs';
import type { DataSource } from 'typeorm';

/** The run row fields the sender tests read. */
export type RunCounters = RunRow;

/**
 * The pipeline from a run to the provider, as processes: campaign-scheduler (due runs, sweeper),
 * batch-expander, the provider simulator and any number of notification-sender replicas, on a
 * database and Kafka namespace of their own. Shared by the sender's end-to-end tests.
 */
export class SendingFixture {
  readonly processes: ServiceProcess[] = [];
  readonly senders: ServiceProcess[] = [];
  simulator!: SimulatorClient;

  private constructor(
    readonly db: Awaited<ReturnType<typeof createTestDatabase>>,
    readonly ds: DataSource,
    readonly namespace: string,
  ) {}

  static async start(label: string): Promise<SendingFixture> {
    const db = await createTestDatabase(label);
    const ds = createDataSource(db.settings);
    await ds.initialize();
    await runPendingMigrations(ds);
    const namespace = `t-${randomBytes(4).toString('hex')}`;
    await ensureTopics(testKafka(), AllTopics, 1, new KafkaNames(namespace));
    const fixture = new SendingFixture(db, ds, namespace);
    const [simulator] = await Promise.all([
      fixture.startProcess('provider-simulator', undefined, { LOG_LEVEL: 'error' }),
      fixture.startProcess('campaign-scheduler', undefined, {
        SCHEDULER_TICK_MS: '200',
        SWEEPER_TICK_MS: '200',
      }),
      fixture.startProcess('batch-expander', undefined, { EXPANDER_POLL_MS: '100' }),
    ]);
    fixture.simulator = new SimulatorClient(simulator.url);
    return fixture;
  }

  env(): Record<string, string> {
    return serviceEnv(this.db.settings.database, this.namespace);
  }

  /**
   * A sender replica with test-sized claim expiry and its own rate-limit keys in the shared Redis.
   * The provider timeouts fit the claim (start-up checks 2 x (1,000 + 2 x 3,000) + 1,000 <= 15,000).
   */
  async startSender(instance: string, extra: Record<string, string> = {}): Promise<ServiceProcess> {
    const sender = await this.startProcess('notification-sender', instance, {
      RATE_LIMIT_KEY_PREFIX: `t:${this.namespace}:`,
      SENDER_CLAIM_TIMEOUT_MS: '15000',
      SENDER_CLAIM_RECORD_MARGIN_MS: '1000',
      PROVIDER_CONNECT_TIMEOUT_MS: '1000',
      PROVIDER_HTTP_TIMEOUT_MS: '3000',
      SENDER_CLAIM_SWEEP_MS: '500',
      ...extra,
    });
    this.senders.push(sender);
    return sender;
  }

  async createRun(campaignId: string): Promise<string> {
    const result = (await this.ds.query(
      `INSERT INTO runs (campaign_id, fire_at, state) VALUES (?, UTC_TIMESTAMP(3), 'PENDING')`,
      [campaignId],
    )) as { insertId: number };
    return String(result.insertId);
  }

  counters(runId: string): Promise<RunCounters> {
    return runRowOf(this.ds, runId);
  }

  /** Message rows of a run by state, counted from the rows themselves. */
  statesOf(runId: string): Promise<Record<string, number>> {
    return messageStatesOf(this.ds, runId);
  }

  async stop(): Promise<void> {
    await Promise.all(this.processes.map((p) => p.process.stop()));
    await this.ds.destroy();
    await this.db.drop();
  }

  private async startProcess(
    app: string,
    instance: string | undefined,
    extra: Record<string, string>,
  ): Promise<ServiceProcess> {
    const started = await startServiceProcess({ app, instance, env: { ...this.env(), ...extra } });
    this.processes.push(started);
    return started;
  }
}

/** Reads the status topic of a namespace from the beginning: every status each message was published with. */
export class StatusTopicProbe {
  readonly statuses = new Map<string, Set<string>>();
  events = 0;

  private constructor(private readonly consumer: Consumer) {}

  static async start(namespace: string): Promise<StatusTopicProbe> {
    const kafka = new Kafka({ clientId: 'status-probe', brokers: testBrokers(), logLevel: logLevel.NOTHING });
    const consumer = kafka.consumer({ groupId: `status-probe-${randomBytes(3).toString('hex')}` });
    const probe = new StatusTopicProbe(consumer);
    await consumer.connect();
    await consumer.subscribe({
      topic: new KafkaNames(namespace).topic(Topics.messageStatus.name),
      fromBeginning: true,
    });
    await consumer.run({
      partitionsConsumedConcurrently: 12,
      eachMessage: ({ message }) => {
        if (message.value === null) return Promise.resolve();
        const event = JSON.parse(message.value.toString('utf8')) as MessageStatusV1;
        const seen = probe.statuses.get(event.messageId) ?? new Set<string>();
        seen.add(event.status);
        probe.statuses.set(event.messageId, seen);
        probe.events++;
        return Promise.resolve();
      },
    });
    return probe;
  }

  async stop(): Promise<void> {
    await this.consumer.disconnect();
  }
}
