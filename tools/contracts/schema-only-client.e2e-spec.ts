import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { AllTopics, Topics } from '@ums/contracts';
import { createDataSource, ensureTopics, KafkaNames, runPendingMigrations } from '@ums/platform';
import {
  createTenantKey,
  createTestDatabase,
  jsonCall,
  serviceEnv,
  type ServiceProcess,
  SimulatorClient,
  startServiceProcess,
  testBrokers,
  testKafka,
  workspaceRoot,
} from '@ums/testing';
import type { DataSource } from 'typeorm';
import {
  publishValid,
  type ReadEvent,
  readCloudEvents,
  schemaValidator,
  singleSendCampaignId,
} from './schema-only-client';

jest.setTimeout(240_000);

const SCHEMAS = join(workspaceRoot(), 'docs/asyncapi/schemas');
const CLIENT_SOURCE = join(workspaceRoot(), 'tools/contracts/schema-only-client.ts');
const RECIPIENT = '+4915100007007';

/**
 * The contract as a team in another language meets it: a producer that knows only the published JSON
 * Schema sends a single send request, and a consumer reads the status events through their CloudEvents
 * headers. The scheduler, sender, webhook-ingest and the provider simulator run as processes.
 */
describe('a producer and a consumer that know only the published schemas', () => {
  let db: Awaited<ReturnType<typeof createTestDatabase>>;
  let ds: DataSource;
  let names: KafkaNames;
  let credentialId = '';
  const processes: ServiceProcess[] = [];

  beforeAll(async () => {
    db = await createTestDatabase('schema_only');
    ds = createDataSource(db.settings);
    await ds.initialize();
    await runPendingMigrations(ds);
    const namespace = `t-${randomBytes(4).toString('hex')}`;
    names = new KafkaNames(namespace);
    await ensureTopics(testKafka(), AllTopics, 1, names);
    const env = serviceEnv(db.settings.database, namespace);
    const start = async (app: string, extra: Record<string, string> = {}): Promise<ServiceProcess> => {
      const started = await startServiceProcess({ app, env: { ...env, ...extra } });
      processes.push(started);
      return started;
    };
    const [simulator, ingest, scheduler] = await Promise.all([
      start('provider-simulator', { LOG_LEVEL: 'error' }),
      start('webhook-ingest'),
      start('campaign-scheduler'),
      start('notification-sender', { RATE_LIMIT_KEY_PREFIX: `t:${namespace}:` }),
    ]);
    const key = await createTenantKey(scheduler.url, 'acme');
    const callbackSecret = `cb_${randomBytes(16).toString('hex')}`;
    const credential = await jsonCall(
      scheduler.url,
      'POST',
      '/v1/credentials',
      {
        name: 'simulator',
        provider: 'simulator',
        channel: 'sms',
        config: { baseUrl: simulator.url },
        callbackSecret,
        rateCeilingPerSec: 50,
        rateFloorPerSec: 5,
      },
      key,
    );
    expect(credential.status).toBe(201);
    credentialId = String(credential.body['id']);
    await new SimulatorClient(simulator.url).putCredential(credentialId, {
      provider: 'simulator',
      callbackUrl: `${ingest.url}/v1/callbacks/simulator/${credentialId}`,
      callbackSecret,
      callbacks: { enabled: true },
    });
  });

  afterAll(async () => {
    await Promise.all(processes.map((p) => p.process.stop()));
    await ds?.destroy();
    await db?.drop();
  });

  it('imports nothing of the project', () => {
    const imports = [...readFileSync(CLIENT_SOURCE, 'utf8').matchAll(/from '([^']+)'/g)].map((m) => m[1]);
    expect(
      imports.filter((name) => !/^(node:|ajv|ajv-formats$|cloudevents$|kafkajs$)/.test(name ?? '')),
    ).toEqual([]);
  });

  it('refuses, before publishing, a request its schema refuses', () => {
    const check = schemaValidator(join(SCHEMAS, 'SendRequestV1.schema.json'));
    const { recipient: _dropped, ...withoutRecipient } = singleRequest('req-invalid');
    expect(() => check(withoutRecipient)).toThrow(/recipient/);
    expect(() => check({ ...singleRequest('req-invalid'), channel: 'fax' })).toThrow(/channel/);
  });

  it('publishes a send request valid by its schema and reads SENT then DELIVERED as CloudEvents', async () => {
    const requestId = `req-${randomBytes(6).toString('hex')}`;
    await publishValid({
      brokers: testBrokers(),
      schemaFile: join(SCHEMAS, 'SendRequestV1.schema.json'),
      topic: names.topic(Topics.sendRequests.name),
      key: 'acme',
      value: singleRequest(requestId),
    });
    const campaignId = singleSendCampaignId('acme', requestId);
    const ours = (events: readonly ReadEvent[]): ReadEvent[] =>
      events.filter((e) => e.data['campaignId'] === campaignId);
    const events = ours(
      await readCloudEvents({
        brokers: testBrokers(),
        schemaFile: join(SCHEMAS, 'MessageStatusV1.schema.json'),
        topic: names.topic(Topics.messageStatus.name),
        groupId: `schema-only-${requestId}`,
        done: (read) => ours(read).some((e) => e.data['status'] === 'DELIVERED'),
        timeoutMs: 120_000,
      }),
    );
    expect(events.map((e) => e.data['status'])).toEqual(['SENT', 'DELIVERED']);
    for (const event of events) {
      expect(event).toMatchObject({
        id: event.data['eventId'],
        type: 'io.ums.message.status.v1',
        source: '/ums/notification-sender',
        subject: event.data['messageId'],
        time: event.data['occurredAt'],
      });
      expect(event.data).toMatchObject({ tenantId: 'acme', channel: 'sms', recipient: RECIPIENT });
    }
    expect(new Set(events.map((e) => e.id)).size).toBe(events.length);
  });

  /** A single send request as a plain object: the shape comes from SendRequestV1.schema.json alone. */
  function singleRequest(requestId: string): Record<string, unknown> {
    return {
      requestId,
      kind: 'single',
      tenantId: 'acme',
      channel: 'sms',
      credentialId,
      content: { text: 'Your code is {{code}}' },
      recipient: { address: RECIPIENT, variables: { code: '4711' } },
      requestedAt: new Date().toISOString(),
    };
  }
});
