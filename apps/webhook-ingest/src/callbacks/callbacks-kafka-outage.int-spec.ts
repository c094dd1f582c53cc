import { createHmac, randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AllTopics, type ProviderEventV1, Topics } from '@ums/contracts';
import {
  createDataSource,
  ensureTopics,
  KafkaNames,
  parseSecretKeys,
  runPendingMigrations,
  SecretBox,
} from '@ums/platform';
import {
  createTestDatabase,
  type KafkaBrokerHandle,
  seedCampaign,
  serviceEnv,
  type ServiceProcess,
  startKafkaBroker,
  startServiceProcess,
  TEST_SECRETS_KEYS,
  waitUntil,
} from '@ums/testing';
import { Kafka, logLevel } from 'kafkajs';
import type { DataSource } from 'typeorm';

jest.setTimeout(300_000);

const CALLBACKS = 30;
const hubSignature = (secret: string, raw: string): string =>
  `sha256=${createHmac('sha256', secret).update(raw, 'utf8').digest('hex')}`;

/**
 * A broker of its own, stopped while callbacks arrive: nothing may be acknowledged that Kafka does
 * not have, and the provider's retries after it returns must all land and be applied.
 */
describe('webhook-ingest while Kafka is down (dedicated broker)', () => {
  let broker: KafkaBrokerHandle;
  let dataDir: string;
  let db: Awaited<ReturnType<typeof createTestDatabase>>;
  let ds: DataSource;
  let ingest: ServiceProcess;
  let sender: ServiceProcess;
  let ids: string[] = [];
  let kafka: Kafka;
  let names: KafkaNames;
  const namespace = `t-${randomBytes(4).toString('hex')}`;

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'ums-ingest-outage-'));
    broker = await startKafkaBroker({ dataDir, heapMb: 384 });
    kafka = new Kafka({ clientId: 'outage-test', brokers: [broker.brokers], logLevel: logLevel.NOTHING });
    names = new KafkaNames(namespace);
    await ensureTopics(kafka, AllTopics, 1, names);
    db = await createTestDatabase('ingest_outage');
    ds = createDataSource(db.settings);
    await ds.initialize();
    await runPendingMigrations(ds);
    const keys = parseSecretKeys(TEST_SECRETS_KEYS);
    if (!('keys' in keys)) throw new Error(keys.error);
    await ds.query(
      `INSERT INTO credentials (id, tenant_id, name, provider, channel, config, callback_secret_ciphertext,
                                rate_ceiling_per_sec, rate_floor_per_sec)
       VALUES ('cred_sim', 'acme', 'sim', 'simulator', 'sms', '{}', ?, 100, 1)`,
      [new SecretBox(keys.keys).seal('sim-secret')],
    );
    // Messages the callbacks settle, applied by a real notification-sender on the same broker.
    await seedCampaign(db.settings, {
      campaignId: 'cmp_out',
      tenantId: 'acme',
      credentialId: 'cred_sim',
      contacts: CALLBACKS + 1,
    });
    const run = (await ds.query(
      `INSERT INTO runs (campaign_id, fire_at, state, total, sent) VALUES ('cmp_out', UTC_TIMESTAMP(3), 'RUNNING', ?, ?)`,
      [CALLBACKS + 1, CALLBACKS + 1],
    )) as { insertId: number };
    await ds.query(
      `INSERT INTO messages (run_id, campaign_id, tenant_id, contact_id, channel, credential_id, recipient, lane, state)
       SELECT ?, campaign_id, 'acme', id, 'sms', 'cred_sim', address, 'bulk', 'SENT' FROM contacts WHERE campaign_id = 'cmp_out'`,
      [String(run.insertId)],
    );
    ids = (
      (await ds.query('SELECT id FROM messages WHERE run_id = ? ORDER BY id', [String(run.insertId)])) as {
        id: string;
      }[]
    ).map((r) => String(r.id));
    const env = { ...serviceEnv(db.settings.database, namespace), KAFKA_BROKERS: broker.brokers };
    ingest = await startServiceProcess({
      app: 'webhook-ingest',
      env: { ...env, INGEST_PUBLISH_TIMEOUT_MS: '2000' },
    });
    sender = await startServiceProcess({ app: 'notification-sender', env });
  });

  afterAll(async () => {
    await Promise.all([ingest?.process.stop(), sender?.process.stop()]);
    await broker?.stop();
    await ds?.destroy();
    await db?.drop();
    if (dataDir !== undefined) rmSync(dataDir, { recursive: true, force: true });
  });

  const body = (i: number): string =>
    JSON.stringify({
      events: [
        {
          messageId: ids[i + 1],
          providerMessageId: `sim-${i}`,
          status: 'delivered',
          timestamp: '2026-01-01T00:00:00Z',
        },
      ],
    });
  const post = async (i: number): Promise<number> => {
    const raw = body(i);
    const response = await fetch(`${ingest.url}/v1/callbacks/simulator/cred_sim`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-sim-signature': hubSignature('sim-secret', raw) },
      body: raw,
    });
    await response.arrayBuffer();
    return response.status;
  };

  it('answers 503 while Kafka is stopped, and every retry lands and is applied after it returns', async () => {
    expect(await post(-1)).toBe(200);
    await broker.stop();
    const during = await Promise.all(Array.from({ length: CALLBACKS }, (_, i) => post(i)));
    expect(during.filter((status) => status === 503)).toHaveLength(CALLBACKS);

    await broker.restart();
    // The provider retries each callback until it is acknowledged.
    const pending = new Set(Array.from({ length: CALLBACKS }, (_, i) => i));
    await waitUntil(
      'every retried callback acknowledged',
      async () => {
        for (const i of [...pending]) if ((await post(i)) === 200) pending.delete(i);
        return pending.size === 0;
      },
      { timeoutMs: 120_000, intervalMs: 500 },
    );

    const consumer = kafka.consumer({ groupId: `outage-observer-${randomBytes(3).toString('hex')}` });
    const seen = new Set<string>();
    await consumer.connect();
    await consumer.subscribe({ topic: names.topic(Topics.providerEvents.name), fromBeginning: true });
    await consumer.run({
      eachMessage: async ({ message }) => {
        seen.add((JSON.parse(String(message.value)) as ProviderEventV1).status?.messageId ?? '');
        await Promise.resolve();
      },
    });
    try {
      await waitUntil('all callbacks on the topic', () => seen.size >= CALLBACKS + 1, { timeoutMs: 60_000 });
      // Every acknowledged callback is on the topic (an unacknowledged attempt may be there too: consumers absorb it).
      expect(Array.from({ length: CALLBACKS }, (_, i) => seen.has(ids[i + 1] ?? '')).every(Boolean)).toBe(
        true,
      );
    } finally {
      await consumer.disconnect();
    }
    // And the sender applied every one of them: all rows DELIVERED, the run's counters with them.
    await waitUntil(
      'all callbacks applied',
      async () => {
        const rows = (await ds.query(
          `SELECT COUNT(*) AS n FROM messages WHERE campaign_id = 'cmp_out' AND state = 'DELIVERED'`,
        )) as { n: string }[];
        return Number(rows[0]?.n) === CALLBACKS + 1;
      },
      { timeoutMs: 90_000, intervalMs: 500 },
    );
    // The sender folds its counter deltas into runs every 100 ms (see its README): wait for that.
    const counters = async (): Promise<number[]> => {
      const [run] = (await ds.query(
        `SELECT sent, delivered FROM runs WHERE campaign_id = 'cmp_out'`,
      )) as Record<string, string>[];
      return [Number(run?.['sent']), Number(run?.['delivered'])];
    };
    await waitUntil('run counters folded', async () => (await counters())[1] === CALLBACKS + 1, {
      timeoutMs: 30_000,
      intervalMs: 200,
    });
    expect(await counters()).toEqual([0, CALLBACKS + 1]);
  });
});
