import { randomBytes } from 'node:crypto';
import { AllTopics, Channel, MessageStatus, type MessageStatusV1, Topics } from '@ums/contracts';
import { createDataSource, ensureTopics, KafkaNames, runPendingMigrations } from '@ums/platform';
import {
  createTestDatabase,
  serviceEnv,
  type ServiceProcess,
  startServiceProcess,
  testKafka,
  waitUntil,
} from '@ums/testing';
import type { Producer } from 'kafkajs';
import type { DataSource } from 'typeorm';
import { LoopbackSubscriber } from './fixtures/loopback-subscriber';

jest.setTimeout(180_000);

const EVENTS_PER_PHASE = 400;
const RATE_PER_SEC = 100;

function p99(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil(sorted.length * 0.99) - 1)] ?? 0;
}

describe('webhook-dispatcher: isolation from a timing-out subscriber, and the probe (real process)', () => {
  let db: Awaited<ReturnType<typeof createTestDatabase>>;
  let ds: DataSource;
  let names: KafkaNames;
  let producer: Producer;
  let dispatcher: ServiceProcess;
  const servers: LoopbackSubscriber[] = [];

  beforeAll(async () => {
    db = await createTestDatabase('webhook_isolation');
    ds = createDataSource(db.settings);
    await ds.initialize();
    await runPendingMigrations(ds);
    const namespace = `t-${randomBytes(4).toString('hex')}`;
    names = new KafkaNames(namespace);
    await ensureTopics(testKafka(), AllTopics, 1, names);
    dispatcher = await startServiceProcess({
      app: 'webhook-dispatcher',
      env: {
        ...serviceEnv(db.settings.database, namespace),
        LOG_LEVEL: 'error',
        WEBHOOK_INTERNAL_SUBSCRIBERS_ALLOWED: 'true',
        WEBHOOK_RETRY_DELAYS_MS: '500,1000,2000,4000,8000',
        WEBHOOK_TIMEOUT_MS: '1000',
        // Never tombstoned here: the slow subscriber must keep timing out during the whole measurement.
        WEBHOOK_FAILURE_THRESHOLD: '1000000',
        WEBHOOK_SUBSCRIBER_REFRESH_MS: '200',
        WEBHOOK_PROBE_INTERVAL_MS: '500',
      },
    });
    producer = testKafka().producer();
    await producer.connect();
  });

  afterAll(async () => {
    await dispatcher?.process.stop();
    await Promise.all([producer?.disconnect(), ...servers.map((s) => s.stop())]);
    await ds?.destroy();
    await db?.drop();
  });

  async function subscribe(tenantId = 'iso'): Promise<{ server: LoopbackSubscriber; id: string }> {
    const server = await LoopbackSubscriber.start();
    servers.push(server);
    const response = await fetch(`${dispatcher.url}/v1/subscribers`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        tenantId,
        url: server.url(),
        eventTypes: ['message.status'],
        internal: true,
      }),
    });
    expect(response.status).toBe(201);
    const created = (await response.json()) as { secret: string; id: string };
    server.secret = created.secret;
    return { server, id: created.id };
  }

  /** Publishes at a steady rate over many campaigns (partitions); returns publish times by event id. */
  async function publishPhase(prefix: string): Promise<Map<string, number>> {
    const sentAt = new Map<string, number>();
    const perTick = RATE_PER_SEC / 10;
    for (let i = 0; i < EVENTS_PER_PHASE; i += perTick) {
      const tickStarted = Date.now();
      const values: MessageStatusV1[] = [];
      for (let j = i; j < Math.min(EVENTS_PER_PHASE, i + perTick); j++) {
        values.push({
          eventId: `${prefix}-${j}`,
          messageId: String(j + 1),
          tenantId: 'iso',
          campaignId: `cmp-${j % 24}`,
          channel: Channel.Sms,
          recipient: '+4915100000001',
          status: MessageStatus.Delivered,
          occurredAt: new Date().toISOString(),
        });
      }
      const now = Date.now();
      for (const v of values) sentAt.set(v.eventId, now);
      await producer.send({
        topic: names.topic(Topics.messageStatus.name),
        acks: -1,
        messages: values.map((v) => ({ key: v.campaignId, value: JSON.stringify(v) })),
      });
      await new Promise((resolve) => setTimeout(resolve, Math.max(0, 100 - (Date.now() - tickStarted))));
    }
    return sentAt;
  }

  function latencies(server: LoopbackSubscriber, sentAt: Map<string, number>): number[] {
    const out: number[] = [];
    for (const received of server.received) {
      const sent = sentAt.get(received.webhookId);
      if (sent !== undefined) out.push(received.receivedAt - sent);
    }
    return out;
  }

  it('keeps the healthy subscriber p99 within 1.5x (plus a small floor) while another times out on every request', async () => {
    const { server: healthy } = await subscribe();
    // Warm-up: consumer groups joined, connections open.
    await publishPhase('warm');
    await waitUntil('warm-up delivered', () => healthy.accepted.length === EVENTS_PER_PHASE, {
      timeoutMs: 60_000,
    });

    const alone = await publishPhase('alone');
    await waitUntil('phase 1 delivered', () => healthy.accepted.length === 2 * EVENTS_PER_PHASE, {
      timeoutMs: 60_000,
    });
    const baseline = p99(latencies(healthy, alone));

    const { server: slow } = await subscribe();
    slow.mode = { kind: 'hang' };
    const withSlow = await publishPhase('slow');
    await waitUntil('phase 2 delivered', () => healthy.accepted.length === 3 * EVENTS_PER_PHASE, {
      timeoutMs: 60_000,
    });
    const contended = p99(latencies(healthy, withSlow));

    // The slow subscriber really was timing out on every request meanwhile, and the healthy one got each event once.
    expect(slow.received.filter((r) => r.webhookId.startsWith('slow-')).length).toBeGreaterThan(
      EVENTS_PER_PHASE / 4,
    );
    expect(slow.accepted).toHaveLength(0);
    expect(healthy.received.filter((r) => r.webhookId.startsWith('slow-'))).toHaveLength(EVENTS_PER_PHASE);
    expect(healthy.invalidSignatures()).toBe(0);
    process.stdout.write(
      `healthy subscriber p99: alone ${baseline} ms, with a timing-out subscriber ${contended} ms\n`,
    );
    // Loopback latencies are tens of ms and, on a shared 2-core machine, see stalls of a few hundred ms
    // (GC, MariaDB fsync, Kafka) in either phase; the 150 ms floor keeps that noise from deciding the test,
    // while a healthy subscriber queued behind 1 s timeouts would still fail it by far.
    expect(contended).toBeLessThanOrEqual(Math.max(baseline, 150) * 1.5);
  });

  it('probes a dead subscriber and resurrects it when it answers, replaying what it missed in order', async () => {
    const { server, id } = await subscribe('probe');
    server.mode = { kind: 'status', status: 500 };
    await ds.query(`UPDATE subscribers SET state = 'DEAD', dead_since = UTC_TIMESTAMP(3) WHERE id = ?`, [id]);
    await new Promise((resolve) => setTimeout(resolve, 500)); // every directory sees it dead
    const ids = Array.from({ length: 5 }, (_, i) => `probe-${i}`);
    await producer.send({
      topic: names.topic(Topics.messageStatus.name),
      acks: -1,
      messages: ids.map((eventId, i) => ({
        key: 'cmp-probe',
        value: JSON.stringify({
          eventId,
          messageId: String(i + 1),
          tenantId: 'probe',
          campaignId: 'cmp-probe',
          channel: Channel.Sms,
          recipient: '+4915100000001',
          status: MessageStatus.Delivered,
          occurredAt: new Date().toISOString(),
        } satisfies MessageStatusV1),
      })),
    });
    await waitUntil(
      'failed probes',
      () => server.received.filter((r) => r.webhookId.startsWith('probe_')).length >= 2,
    );
    expect(server.received.filter((r) => r.webhookId.startsWith('probe-'))).toHaveLength(0);
    server.mode = { kind: 'ok' };
    await waitUntil('resurrected by the probe and replayed', async () => {
      const response = await fetch(`${dispatcher.url}/v1/subscribers/${id}`);
      return ((await response.json()) as { state: string }).state === 'ALIVE';
    });
    expect(server.accepted.filter((w) => w.startsWith('probe-'))).toEqual(ids);
    expect(server.invalidSignatures()).toBe(0);
  });
});
