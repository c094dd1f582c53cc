import { randomBytes } from 'node:crypto';
import { AllTopics, Channel, MessageStatus, type MessageStatusV1, Topics } from '@ums/contracts';
import { createDataSource, ensureTopics, KafkaNames, runPendingMigrations } from '@ums/platform';
import {
  createTestDatabase,
  LoopbackSubscriber,
  serviceEnv,
  type ServiceProcess,
  startServiceProcess,
  testKafka,
} from '@ums/testing';
import type { Producer } from 'kafkajs';
import type { DataSource } from 'typeorm';

type TestDatabase = Awaited<ReturnType<typeof createTestDatabase>>;

/** A status event as the sender publishes it (DELIVERED), the `index`-th of its campaign. */
export function statusEvent(
  eventId: string,
  index: number,
  tenantId: string,
  campaignId: string,
): MessageStatusV1 {
  return {
    eventId,
    messageId: String(index + 1),
    tenantId,
    campaignId,
    channel: Channel.Sms,
    recipient: '+4915100000001',
    status: MessageStatus.Delivered,
    occurredAt: new Date().toISOString(),
  };
}

/**
 * One webhook-dispatcher process on its own database and topic namespace, a producer for the event
 * topics, and the loopback subscribers registered through its API (shared by the dispatcher e2e specs).
 */
export class DispatcherFixture {
  readonly servers: LoopbackSubscriber[] = [];

  private constructor(
    readonly db: TestDatabase,
    readonly ds: DataSource,
    readonly names: KafkaNames,
    readonly producer: Producer,
    readonly dispatcher: ServiceProcess,
  ) {}

  /** `env` adds to the test service env (internal subscribers are always allowed). */
  static async start(label: string, env: Record<string, string>): Promise<DispatcherFixture> {
    const db = await createTestDatabase(label);
    const ds = createDataSource(db.settings);
    await ds.initialize();
    await runPendingMigrations(ds);
    const namespace = `t-${randomBytes(4).toString('hex')}`;
    const names = new KafkaNames(namespace);
    await ensureTopics(testKafka(), AllTopics, 1, names);
    const dispatcher = await startServiceProcess({
      app: 'webhook-dispatcher',
      env: {
        ...serviceEnv(db.settings.database, namespace),
        WEBHOOK_INTERNAL_SUBSCRIBERS_ALLOWED: 'true',
        ...env,
      },
    });
    const producer = testKafka().producer();
    await producer.connect();
    return new DispatcherFixture(db, ds, names, producer, dispatcher);
  }

  /** A loopback server subscribed (internal) to message.status for `tenantId`; its secret is set. */
  async subscribe(
    tenantId: string,
    extra: Record<string, unknown> = {},
  ): Promise<{ server: LoopbackSubscriber; id: string }> {
    const server = await LoopbackSubscriber.start();
    this.servers.push(server);
    const response = await fetch(`${this.dispatcher.url}/v1/subscribers`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        tenantId,
        url: server.url(),
        eventTypes: ['message.status'],
        internal: true,
        ...extra,
      }),
    });
    if (response.status !== 201)
      throw new Error(`subscriber not created: ${response.status} ${await response.text()}`);
    const created = (await response.json()) as { secret: string; id: string };
    server.secret = created.secret;
    return { server, id: created.id };
  }

  /** Publishes status events on the status topic, keyed by campaign, acks=all. */
  async publishStatuses(values: readonly MessageStatusV1[]): Promise<void> {
    await this.producer.send({
      topic: this.names.topic(Topics.messageStatus.name),
      acks: -1,
      messages: values.map((v) => ({ key: v.campaignId, value: JSON.stringify(v) })),
    });
  }

  async stop(): Promise<void> {
    await this.dispatcher.process.stop();
    await Promise.all([this.producer.disconnect(), ...this.servers.map((s) => s.stop())]);
    await this.ds.destroy();
    await this.db.drop();
  }
}
