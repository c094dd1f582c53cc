import { randomBytes } from 'node:crypto';
import { AllTopics, FailureReason } from '@ums/contracts';
import { createDataSource, ensureTopics, KafkaNames, runPendingMigrations } from '@ums/platform';
import {
  bearer,
  createTenantKey,
  createTestDatabase,
  messageStatesOf,
  runRowOf,
  serviceEnv,
  type ServiceProcess,
  startServiceProcess,
  testKafka,
} from '@ums/testing';
import type { DataSource } from 'typeorm';

jest.setTimeout(180_000);

interface Answer {
  readonly status: number;
  readonly body: Record<string, unknown>;
}

/** The status-refresh routes and resend-unknown of the real service (built from dist/) over a seeded run. */
describe('run status refresh API (service process)', () => {
  let database: Awaited<ReturnType<typeof createTestDatabase>>;
  let ds: DataSource;
  let service: ServiceProcess;
  let keyT1: string;
  let keyT2: string;
  let runId: string;

  beforeAll(async () => {
    database = await createTestDatabase('status_refresh_api');
    ds = createDataSource(database.settings);
    await ds.initialize();
    await runPendingMigrations(ds);
    await ds.query(
      `INSERT INTO credentials (id, tenant_id, name, provider, channel, config, rate_ceiling_per_sec, rate_floor_per_sec)
       VALUES ('cred-s', 't1', 'sim', 'simulator', 'sms', '{}', 100, 1)`,
    );
    await ds.query(
      `INSERT INTO campaigns (id, tenant_id, name, channel, credential_id, template, schedule_kind, state)
       VALUES ('camp-s', 't1', 's', 'sms', 'cred-s', '{}', 'now', 'COMPLETED')`,
    );
    // A finished run: the scheduler's pollers and sweeper leave it alone. Counters match the rows below.
    const run = (await ds.query(
      `INSERT INTO runs (campaign_id, fire_at, state, total, sent, unknown, failed)
       VALUES ('camp-s', '2030-01-01 00:00:00', 'COMPLETED', 9, 3, 3, 3)`,
    )) as { insertId: number };
    runId = String(run.insertId);
    const rows: [string, string | null, string][] = [
      ['UNKNOWN', null, 'DATE_SUB(UTC_TIMESTAMP(3), INTERVAL 1 MINUTE)'],
      ['UNKNOWN', null, 'DATE_SUB(UTC_TIMESTAMP(3), INTERVAL 1 MINUTE)'],
      ['UNKNOWN', null, 'DATE_SUB(UTC_TIMESTAMP(3), INTERVAL 1 MINUTE)'],
      ['SENT', null, 'DATE_SUB(UTC_TIMESTAMP(3), INTERVAL 2 HOUR)'],
      ['SENT', null, 'DATE_SUB(UTC_TIMESTAMP(3), INTERVAL 2 HOUR)'],
      ['SENT', null, 'UTC_TIMESTAMP(3)'],
      ['FAILED', FailureReason.NotReceived, 'DATE_SUB(UTC_TIMESTAMP(3), INTERVAL 1 HOUR)'],
      ['FAILED', FailureReason.NotReceived, 'DATE_SUB(UTC_TIMESTAMP(3), INTERVAL 1 HOUR)'],
      ['FAILED', FailureReason.InvalidRecipient, 'DATE_SUB(UTC_TIMESTAMP(3), INTERVAL 1 HOUR)'],
    ];
    for (const [i, [state, reason, claimedAt]] of rows.entries()) {
      await ds.query(
        `INSERT INTO messages (run_id, campaign_id, tenant_id, contact_id, channel, credential_id, recipient, lane,
           state, reason, attempts, claimed_at)
         VALUES (?, 'camp-s', 't1', ?, 'sms', 'cred-s', ?, 'bulk', ?, ?, 1, ${claimedAt})`,
        [runId, i + 1, `+1555000000${i}`, state, reason],
      );
    }
    const namespace = `t-${randomBytes(4).toString('hex')}`;
    await ensureTopics(testKafka(), AllTopics, 1, new KafkaNames(namespace));
    service = await startServiceProcess({
      app: 'campaign-scheduler',
      env: { ...serviceEnv(database.settings.database, namespace), STATUS_REFRESH_SENT_AFTER_MS: '3600000' },
    });
    keyT1 = await createTenantKey(service.url, 't1');
    keyT2 = await createTenantKey(service.url, 't2');
  });

  afterAll(async () => {
    await service?.process.stop();
    if (ds?.isInitialized) await ds.destroy();
    await database?.drop();
  });

  async function call(method: string, path: string, key: string): Promise<Answer> {
    const response = await fetch(`${service.url}${path}`, { method, headers: bearer(key) });
    const text = await response.text();
    return {
      status: response.status,
      body: text === '' ? {} : (JSON.parse(text) as Record<string, unknown>),
    };
  }

  const path = (run: string = runId): string => `/v1/campaigns/camp-s/runs/${run}/status-refresh`;
  const requests = async (): Promise<number> =>
    Number(((await ds.query('SELECT COUNT(*) AS n FROM status_refresh_requests')) as { n: string }[])[0]?.n);

  it("answers 404 for another tenant's run as for a missing one, and records nothing", async () => {
    for (const method of ['GET', 'POST']) {
      const foreign = await call(method, path(), keyT2);
      const missing = await call(method, path('999999'), keyT2);
      expect(foreign.status).toBe(404);
      expect((foreign.body['error'] as { code: string }).code).toBe('RUN_NOT_FOUND');
      expect(missing.status).toBe(404);
      expect((missing.body['error'] as { code: string }).code).toBe('RUN_NOT_FOUND');
    }
    expect(await requests()).toBe(0);
  });

  it('counts the unsettled rows, records one open request, shows what the senders settled', async () => {
    const before = await call('GET', path(), keyT1);
    expect(before).toEqual({
      status: 200,
      body: { runId, unsettled: { unknown: 3, sentWithoutCallback: 2 }, lastRefresh: null },
    });
    const posted = await call('POST', path(), keyT1);
    expect(posted.status).toBe(202);
    expect(posted.body['lastRefresh']).toMatchObject({
      finishedAt: null,
      settled: { sent: 0, delivered: 0, read: 0, failed: 0, notReceived: 0 },
      unresolved: 0,
    });
    // Asked again while the first is open: the senders serve that one, no second request.
    expect((await call('POST', path(), keyT1)).status).toBe(202);
    expect(await requests()).toBe(1);
    // What a sender writes as it serves the request.
    await ds.query(
      `UPDATE status_refresh_requests SET settled_delivered = 2, settled_not_received = 1, unresolved = 4,
              cursor_state = 'SENT', finished_at = UTC_TIMESTAMP(3) WHERE run_id = ?`,
      [runId],
    );
    const after = await call('GET', path(), keyT1);
    expect(after.body['lastRefresh']).toMatchObject({
      settled: { sent: 0, delivered: 2, read: 0, failed: 0, notReceived: 1 },
      unresolved: 4,
    });
    expect(typeof (after.body['lastRefresh'] as { finishedAt: unknown }).finishedAt).toBe('string');
  });

  it('resend-unknown also sends again the rows the provider never received, and nothing else', async () => {
    const answer = await call('POST', `/v1/campaigns/camp-s/runs/${runId}/resend-unknown`, keyT1);
    expect(answer.status).toBe(200);
    expect(answer.body['requeued']).toBe(5);
    expect(await messageStatesOf(ds, runId)).toEqual({ PENDING: 5, SENT: 3, FAILED: 1 });
    const run = await runRowOf(ds, runId);
    expect({ pending: run.pending, sent: run.sent, unknown: run.unknown, failed: run.failed }).toEqual({
      pending: 5,
      sent: 3,
      unknown: 0,
      failed: 1,
    });
    const reasons = (await ds.query(`SELECT reason FROM messages WHERE run_id = ? AND state = 'FAILED'`, [
      runId,
    ])) as { reason: string }[];
    expect(reasons).toEqual([{ reason: FailureReason.InvalidRecipient }]);
  });
});
