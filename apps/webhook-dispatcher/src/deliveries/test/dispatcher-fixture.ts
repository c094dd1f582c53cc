import { randomBytes } from 'node:crypto';
import { DispatcherApiClient } from '@ums/client';
import {
  AllTopics,
  Channel,
  MessageStatus,
  type MessageStatusV1,
  type Scope,
  TENANT_HEADER,
  Topics,
} from '@ums/contracts';
import { createDataSource, ensureTopics, KafkaNames, runPendingMigrations } from '@ums/platform';
import {
  bearer,
  createTenantKey,
  createTestDatabase,
  LoopbackSubscriber,
  serviceEnv,
  type ServiceProcess,
  startServiceProcess,
  TEST_OPERATOR_KEY,
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

/** Who calls the API: a key (the test operator key by default), acting for `tenant` (X-Ums-Tenant) if set. */
export interface ApiCaller {
  readonly key?: string;
  readonly tenant?: string;
}

/**
 * One webhook-dispatcher process on its own database and topic namespace, a producer for the event
 * topics, and the loopback subscribers registered through its API (shared by the dispatcher e2e specs).
 * With `scheduler`, a campaign-scheduler on the same database serves `/v1/api-keys`, so tenants' keys
 * can be made (`tenantKey`); without it, the API is called with the operator key.
 */
export class DispatcherFixture {
  readonly servers: LoopbackSubscriber[] = [];

  private constructor(
    readonly db: TestDatabase,
    readonly ds: DataSource,
    readonly names: KafkaNames,
    readonly producer: Producer,
    readonly dispatcher: ServiceProcess,
    readonly scheduler: ServiceProcess | undefined,
  ) {}

  /** `env` adds to the test service env (internal subscribers are always allowed). */
  static async start(
    label: string,
    env: Record<string, string>,
    options: { readonly scheduler?: boolean } = {},
  ): Promise<DispatcherFixture> {
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
    const scheduler =
      options.scheduler === true
        ? await startServiceProcess({
            app: 'campaign-scheduler',
            env: { ...serviceEnv(db.settings.database, namespace), LOG_LEVEL: 'error' },
          })
        : undefined;
    const producer = testKafka().producer();
    await producer.connect();
    return new DispatcherFixture(db, ds, names, producer, dispatcher, scheduler);
  }

  /** A new API key of `tenant` (every scope unless `scopes` says otherwise); needs `scheduler`. */
  tenantKey(tenant: string, scopes?: readonly Scope[]): Promise<string> {
    if (this.scheduler === undefined) throw new Error('tenantKey needs the fixture started with a scheduler');
    return createTenantKey(this.scheduler.url, tenant, scopes);
  }

  /** The typed client of the dispatcher's API (`@ums/client`), calling as `caller`. */
  client(caller: ApiCaller = {}): DispatcherApiClient {
    return new DispatcherApiClient({
      baseUrl: this.dispatcher.url,
      apiKey: caller.key ?? TEST_OPERATOR_KEY,
      ...(caller.tenant === undefined ? {} : { tenant: caller.tenant }),
    });
  }

  /** One call of the dispatcher's API; the body is parsed JSON (undefined when empty). */
  async api<T>(
    method: string,
    path: string,
    body?: unknown,
    caller: ApiCaller = {},
  ): Promise<{ status: number; body: T }> {
    const response = await fetch(`${this.dispatcher.url}${path}`, {
      method,
      headers: {
        ...bearer(caller.key ?? TEST_OPERATOR_KEY),
        ...(caller.tenant === undefined ? {} : { [TENANT_HEADER]: caller.tenant }),
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.text();
    return { status: response.status, body: (text === '' ? undefined : JSON.parse(text)) as T };
  }

  /**
   * A loopback server subscribed (internal) to message.status for `tenantId` (with the operator key
   * acting for it, unless `caller` gives a key); its secret is set.
   */
  async subscribe(
    tenantId: string,
    extra: Record<string, unknown> = {},
    caller: ApiCaller = { tenant: tenantId },
  ): Promise<{ server: LoopbackSubscriber; id: string }> {
    const server = await LoopbackSubscriber.start();
    this.servers.push(server);
    const created = await this.api<{ secret: string; id: string }>(
      'POST',
      '/v1/subscribers',
      { url: server.url(), eventTypes: ['message.status'], internal: true, ...extra },
      caller,
    );
    if (created.status !== 201)
      throw new Error(`subscriber not created: ${created.status} ${JSON.stringify(created.body)}`);
    server.secret = created.body.secret;
    return { server, id: created.body.id };
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
    await Promise.all([this.dispatcher.process.stop(), this.scheduler?.process.stop()]);
    await Promise.all([this.producer.disconnect(), ...this.servers.map((s) => s.stop())]);
    await this.ds.destroy();
    await this.db.drop();
  }
}
