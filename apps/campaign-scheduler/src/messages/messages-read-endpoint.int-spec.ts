import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AllTopics, MessageStatus } from '@ums/contracts';
import { createDataSource, ensureTopics, KafkaNames, runPendingMigrations } from '@ums/platform';
import {
  bearer,
  createTenantKey,
  createTestDatabase,
  type MariadbServerHandle,
  serviceEnv,
  type ServiceProcess,
  startMariadbServer,
  startServiceProcess,
  testKafka,
  type TestMysqlSettings,
} from '@ums/testing';
import { parse } from 'csv-parse/sync';

jest.setTimeout(180_000);

const MESSAGES = 3;

/**
 * With MYSQL_READ_HOST set, the run's message listing and CSV export read from that endpoint while
 * everything else stays on the primary. The read endpoint here is a second MariaDB holding the same
 * rows in other states (as a lagging replica would), so where each answer came from shows in it.
 */
describe('message listing and CSV export from the read endpoint (MYSQL_READ_HOST)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'ums-read-endpoint-'));
  let primary: Awaited<ReturnType<typeof createTestDatabase>>;
  let reader: MariadbServerHandle;
  let service: ServiceProcess;
  let key: string;
  let runId: string;
  let firstId: string;

  /** The same campaign, run and messages on a server; each message in `state`. */
  async function seed(
    settings: TestMysqlSettings,
    state: MessageStatus,
  ): Promise<{ run: string; first: string }> {
    const ds = await createDataSource(settings).initialize();
    try {
      await runPendingMigrations(ds);
      await ds.query(
        `INSERT INTO credentials (id, tenant_id, name, provider, channel, config, rate_ceiling_per_sec, rate_floor_per_sec)
         VALUES ('cred-r', 't1', 'sim', 'simulator', 'sms', '{}', 100, 1)`,
      );
      await ds.query(
        `INSERT INTO campaigns (id, tenant_id, name, channel, credential_id, template, schedule_kind, state)
         VALUES ('camp-r', 't1', 'r', 'sms', 'cred-r', '{}', 'now', 'COMPLETED')`,
      );
      const run = (await ds.query(
        `INSERT INTO runs (campaign_id, fire_at, state) VALUES ('camp-r', '2030-01-01 00:00:00', 'COMPLETED')`,
      )) as { insertId: number | string };
      for (let i = 0; i < MESSAGES; i++) {
        await ds.query(
          `INSERT INTO messages (run_id, campaign_id, tenant_id, contact_id, channel, credential_id, recipient, lane,
             state)
           VALUES (?, 'camp-r', 't1', ?, 'sms', 'cred-r', ?, 'bulk', ?)`,
          [run.insertId, i + 1, `+1555000000${i}`, state],
        );
      }
      const [first] = (await ds.query('SELECT MIN(id) AS id FROM messages')) as { id: string }[];
      return { run: String(run.insertId), first: String(first?.id) };
    } finally {
      await ds.destroy();
    }
  }

  beforeAll(async () => {
    primary = await createTestDatabase('ums_read_primary');
    reader = await startMariadbServer({ dir: join(dir, 'reader'), bufferPoolMb: 64 });
    const onPrimary = await seed(primary.settings, MessageStatus.Sent);
    const onReader = await seed(
      await reader.createDatabase(primary.settings.database),
      MessageStatus.Delivered,
    );
    expect(onReader).toEqual(onPrimary);
    runId = onPrimary.run;
    firstId = onPrimary.first;
    const namespace = `t-${randomBytes(4).toString('hex')}`;
    await ensureTopics(testKafka(), AllTopics, 1, new KafkaNames(namespace));
    service = await startServiceProcess({
      app: 'campaign-scheduler',
      env: {
        ...serviceEnv(primary.settings.database, namespace),
        MYSQL_READ_HOST: reader.host,
        MYSQL_READ_PORT: String(reader.port),
      },
    });
    key = await createTenantKey(service.url, 't1');
  });

  afterAll(async () => {
    await service?.process.stop();
    await reader?.stop();
    await primary?.drop();
    rmSync(dir, { recursive: true, force: true });
  });

  const get = async (path: string): Promise<{ status: number; text: string }> => {
    const response = await fetch(`${service.url}${path}`, { headers: bearer(key) });
    return { status: response.status, text: await response.text() };
  };

  it('lists and exports the run from the read endpoint', async () => {
    const list = await get(`/v1/campaigns/camp-r/runs/${runId}/messages`);
    expect(list.status).toBe(200);
    const items = (JSON.parse(list.text) as { items: { state: string }[] }).items;
    expect(items.map((item) => item.state)).toEqual(Array(MESSAGES).fill(MessageStatus.Delivered));

    const csv = await get(`/v1/campaigns/camp-r/runs/${runId}/messages/export.csv`);
    expect(csv.status).toBe(200);
    const rows = parse(csv.text, { columns: true }) as { state: string }[];
    expect(rows.map((row) => row.state)).toEqual(Array(MESSAGES).fill(MessageStatus.Delivered));
  });

  it('reads a single message, and API keys, from the primary', async () => {
    const message = await get(`/v1/messages/${firstId}`);
    expect(message.status).toBe(200);
    expect((JSON.parse(message.text) as { state: string }).state).toBe(MessageStatus.Sent);
  });

  it('reports the read endpoint in readiness, by name, when it stops answering', async () => {
    const ready = async (): Promise<{ httpStatus: number; checks: Record<string, { ok: boolean }> }> => {
      const response = await fetch(`${service.managementUrl}/health/ready`);
      const body = (await response.json()) as { checks: Record<string, { ok: boolean }> };
      return { httpStatus: response.status, checks: body.checks };
    };
    expect((await ready()).checks['mysql-read']?.ok).toBe(true);
    await reader.stop();
    const after = await ready();
    expect([after.httpStatus, after.checks['mysql-read']?.ok, after.checks['mysql']?.ok]).toEqual([
      503,
      false,
      true,
    ]);
    await reader.start();
  });
});
