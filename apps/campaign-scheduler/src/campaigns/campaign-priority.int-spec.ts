import { randomBytes } from 'node:crypto';
import { AllTopics } from '@ums/contracts';
import { createDataSource, ensureTopics, KafkaNames, runPendingMigrations } from '@ums/platform';
import {
  bearer,
  createTenantKey,
  createTestDatabase,
  serviceEnv,
  type ServiceProcess,
  startServiceProcess,
  testKafka,
} from '@ums/testing';
import type { DataSource } from 'typeorm';

jest.setTimeout(120_000);

interface Answer {
  readonly status: number;
  readonly body: Record<string, unknown>;
}

const campaign = {
  name: 'Priority sale',
  channel: 'sms',
  credentialId: 'cred-prio',
  template: { text: 'Hi {{first_name}}' },
  schedule: { kind: 'now' },
};

/** A campaign's priority through the API of the real service (built from dist/) and in its row. */
describe('campaign priority (campaign API, service process)', () => {
  let database: Awaited<ReturnType<typeof createTestDatabase>>;
  let ds: DataSource;
  let service: ServiceProcess;
  let key: string;
  let otherKey: string;

  beforeAll(async () => {
    database = await createTestDatabase('ums_campaign_priority');
    ds = createDataSource(database.settings);
    await ds.initialize();
    await runPendingMigrations(ds);
    const namespace = `t-${randomBytes(4).toString('hex')}`;
    await ensureTopics(testKafka(), AllTopics, 1, new KafkaNames(namespace));
    await ds.query(
      `INSERT INTO credentials (id, tenant_id, name, provider, channel, config, rate_ceiling_per_sec, rate_floor_per_sec)
       VALUES ('cred-prio', 't1', 'sms', 'simulator', 'sms', '{}', 100, 1)`,
    );
    service = await startServiceProcess({
      app: 'campaign-scheduler',
      env: serviceEnv(database.settings.database, namespace),
    });
    key = await createTenantKey(service.url, 't1');
    otherKey = await createTenantKey(service.url, 't2');
  });

  afterAll(async () => {
    await service?.process.stop();
    if (ds?.isInitialized) await ds.destroy();
    await database?.drop();
  });

  async function send(method: string, path: string, body?: unknown, as = key): Promise<Answer> {
    const response = await fetch(`${service.url}${path}`, {
      method,
      headers: {
        ...bearer(as),
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    return { status: response.status, body: (await response.json()) as Record<string, unknown> };
  }

  async function storedPriority(id: string): Promise<number> {
    const rows = (await ds.query('SELECT priority FROM campaigns WHERE id = ?', [id])) as {
      priority: number;
    }[];
    return Number(rows[0]?.priority);
  }

  /** The fields a 400 names. */
  const fieldsOf = (answer: Answer): string[] =>
    ((answer.body['error'] as { fields?: { field: string }[] }).fields ?? []).map((f) => f.field);

  it('keeps the priority given at creation, and 1 when none is given', async () => {
    const given = await send('POST', '/v1/campaigns', { ...campaign, priority: 7 });
    expect(given.status).toBe(201);
    expect(given.body['priority']).toBe(7);
    const id = String(given.body['id']);
    expect((await send('GET', `/v1/campaigns/${id}`)).body['priority']).toBe(7);
    expect(await storedPriority(id)).toBe(7);
    const listed = (await send('GET', '/v1/campaigns')).body['items'] as Record<string, unknown>[];
    expect(listed.find((c) => c['id'] === id)?.['priority']).toBe(7);

    const plain = await send('POST', '/v1/campaigns', campaign);
    expect(plain.status).toBe(201);
    expect(plain.body['priority']).toBe(1);
    expect(await storedPriority(String(plain.body['id']))).toBe(1);
  });

  it('refuses a priority outside 1..10 at creation with a 400 naming priority', async () => {
    for (const priority of [0, 11, 2.5, '3']) {
      const answer = await send('POST', '/v1/campaigns', { ...campaign, priority });
      expect({ priority, status: answer.status }).toEqual({ priority, status: 400 });
      expect(new Set(fieldsOf(answer))).toEqual(new Set(['priority']));
      expect(JSON.stringify(answer.body)).toContain('priority must be an integer 1..10');
    }
  });

  it('changes the priority of a campaign, running or not, and refuses a bad one naming priority', async () => {
    const created = await send('POST', '/v1/campaigns', campaign);
    const id = String(created.body['id']);
    const started = await send('POST', `/v1/campaigns/${id}/start`);
    expect(started.body['state']).toBe('ACTIVE');

    const changed = await send('PATCH', `/v1/campaigns/${id}`, { priority: 4 });
    expect(changed.status).toBe(200);
    expect(changed.body).toMatchObject({ id, priority: 4, state: 'ACTIVE' });
    expect(await storedPriority(id)).toBe(4);

    for (const priority of [0, 11, 'high']) {
      const refused = await send('PATCH', `/v1/campaigns/${id}`, { priority });
      expect(refused.status).toBe(400);
      expect(new Set(fieldsOf(refused))).toEqual(new Set(['priority']));
    }
    expect(await storedPriority(id)).toBe(4);

    // Another tenant's campaign is as missing as one that does not exist.
    const foreign = await send('PATCH', `/v1/campaigns/${id}`, { priority: 9 }, otherKey);
    expect(foreign.status).toBe(404);
    expect((await send('PATCH', '/v1/campaigns/cmp_nope', { priority: 9 })).status).toBe(404);
    expect(await storedPriority(id)).toBe(4);
  });
});
