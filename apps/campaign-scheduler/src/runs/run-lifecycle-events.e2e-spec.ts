import { randomBytes } from 'node:crypto';
import { AllTopics, type RunLifecycleV1, Topics } from '@ums/contracts';
import { createDataSource, ensureTopics, KafkaNames, runPendingMigrations } from '@ums/platform';
import {
  BatchProbe,
  createTenantKey,
  createTestDatabase,
  jsonCall,
  type JsonAnswer,
  seedCampaign,
  serviceEnv,
  type ServiceProcess,
  startServiceProcess,
  testBrokers,
  testKafka,
  waitUntil,
} from '@ums/testing';
import type { Consumer } from 'kafkajs';
import type { DataSource } from 'typeorm';

jest.setTimeout(300_000);

/** A lifecycle record as it is on the topic: its value, key, partition and CloudEvents headers. */
interface SeenEvent {
  readonly value: RunLifecycleV1;
  readonly key: string;
  readonly partition: number;
  readonly headers: Record<string, string>;
}

describe('run lifecycle events on ums.campaign.lifecycle.v1 (scheduler + expander processes)', () => {
  let db: Awaited<ReturnType<typeof createTestDatabase>>;
  let ds: DataSource;
  let namespace: string;
  let consumer: Consumer;
  const processes: ServiceProcess[] = [];
  let scheduler: ServiceProcess;
  let probe: BatchProbe | undefined;
  let key = '';
  const seen: SeenEvent[] = [];

  beforeAll(async () => {
    db = await createTestDatabase('run_lifecycle');
    ds = createDataSource(db.settings);
    await ds.initialize();
    await runPendingMigrations(ds);
    namespace = `t-${randomBytes(4).toString('hex')}`;
    const names = new KafkaNames(namespace);
    await ensureTopics(testKafka(), AllTopics, 1, names);
    await ds.query(
      `INSERT INTO credentials (id, tenant_id, name, provider, channel, config, rate_ceiling_per_sec, rate_floor_per_sec)
       VALUES ('cred_sms', 'tenant-a', 'sms', 'simulator', 'sms', '{}', 100, 1)`,
    );
    consumer = testKafka().consumer({ groupId: `lifecycle-observer-${namespace}` });
    await consumer.connect();
    await consumer.subscribe({ topic: names.topic(Topics.runLifecycle.name), fromBeginning: true });
    await consumer.run({
      eachMessage: async ({ message, partition }) => {
        const headers: Record<string, string> = {};
        for (const [name, value] of Object.entries(message.headers ?? {})) headers[name] = String(value);
        const value = JSON.parse(String(message.value)) as RunLifecycleV1;
        seen.push({ value, key: String(message.key), partition, headers });
        await Promise.resolve();
      },
    });
  });

  afterAll(async () => {
    await Promise.all([...processes.map((p) => p.process.stop()), probe?.stop()]);
    await consumer?.disconnect();
    await ds?.destroy();
    await db?.drop();
  });

  async function startScheduler(extra: Record<string, string>): Promise<ServiceProcess> {
    const started = await startServiceProcess({
      app: 'campaign-scheduler',
      env: {
        ...serviceEnv(db.settings.database, namespace),
        SCHEDULER_TICK_MS: '200',
        SWEEPER_TICK_MS: '200',
        RUN_EVENTS_RELAY_MS: '100',
        ...extra,
      },
    });
    processes.push(started);
    return started;
  }

  function call(method: string, path: string): Promise<JsonAnswer> {
    return jsonCall(scheduler.url, method, path, undefined, key);
  }

  async function startCampaign(campaignId: string, contacts: number): Promise<string> {
    await seedCampaign(db.settings, {
      campaignId,
      tenantId: 'tenant-a',
      credentialId: 'cred_sms',
      contacts,
      campaignState: 'DRAFT',
    });
    const started = await call('POST', `/v1/campaigns/${campaignId}/start`);
    expect(started.status).toBe(200);
    return String((started.body['runs'] as { id: string }[])[0]?.id);
  }

  async function runRow(runId: string): Promise<{ state: string; checkpoint_cursor: string }> {
    const rows = (await ds.query('SELECT state, checkpoint_cursor FROM runs WHERE id = ?', [runId])) as {
      state: string;
      checkpoint_cursor: string;
    }[];
    return rows[0] as { state: string; checkpoint_cursor: string };
  }

  const eventsOf = (campaignId: string): string[] =>
    seen.filter((e) => e.value.campaignId === campaignId).map((e) => e.value.event);

  it('announces a failed run once: scheduled, then failed with the reason', async () => {
    // No expander yet: the run stays SCHEDULED until its checkpoint is stale, with no retry left.
    scheduler = await startScheduler({ CHECKPOINT_DEADLINE_MS: '1000', RUN_MAX_ATTEMPTS: '0' });
    key = await createTenantKey(scheduler.url, 'tenant-a');
    const runId = await startCampaign('cmp_fail', 10);
    await waitUntil('failed announced', () => eventsOf('cmp_fail').includes('failed'), { timeoutMs: 30_000 });
    expect(eventsOf('cmp_fail')).toEqual(['scheduled', 'failed']);
    const failed = seen.find((e) => e.value.event === 'failed')?.value;
    expect(failed).toMatchObject({
      tenantId: 'tenant-a',
      campaignId: 'cmp_fail',
      runId,
      state: 'FAILED',
      previousState: 'SCHEDULED',
    });
    expect(failed?.reason).toMatch(/^checkpoint stale since /);
    await scheduler.process.stop();
  });

  it('announces every transition of a run once, in order per campaign, across a scheduler restart', async () => {
    // A scheduler that never fails a run, and an expander; the probe plays a slow sender (10 ms a batch).
    scheduler = await startScheduler({});
    processes.push(
      await startServiceProcess({
        app: 'batch-expander',
        env: {
          ...serviceEnv(db.settings.database, namespace),
          EXPANDER_BATCHES_PER_STEP: '2',
          EXPANDER_MAX_BATCHES_AHEAD: '10',
          EXPANDER_POLL_MS: '100',
        },
      }),
    );
    probe = await BatchProbe.start({
      brokers: testBrokers(),
      topic: new KafkaNames(namespace).topic(Topics.batches.name),
      groupId: `probe-${namespace}`,
      finishIn: db.settings,
      finishDelayMs: 10,
    });
    const expanding = async (runId: string): Promise<boolean> => {
      const row = await runRow(runId);
      return row.state === 'RUNNING' && Number(row.checkpoint_cursor) >= 1_000;
    };

    const mainRun = await startCampaign('cmp_main', 20_000);
    const stoppedRun = await startCampaign('cmp_stop', 20_000);
    await waitUntil('main run expanding', () => expanding(mainRun), { timeoutMs: 60_000, intervalMs: 20 });
    expect((await call('POST', `/v1/campaigns/cmp_main/runs/${mainRun}/pause`)).status).toBe(200);
    await waitUntil('stopped run expanding', () => expanding(stoppedRun), {
      timeoutMs: 60_000,
      intervalMs: 20,
    });
    expect((await call('POST', `/v1/campaigns/cmp_stop/runs/${stoppedRun}/stop`)).status).toBe(200);
    expect((await call('POST', `/v1/campaigns/cmp_main/runs/${mainRun}/resume`)).status).toBe(200);
    await waitUntil('main run completed', async () => (await runRow(mainRun)).state === 'COMPLETED', {
      timeoutMs: 180_000,
      intervalMs: 200,
    });
    await waitUntil('completed announced', () => eventsOf('cmp_main').includes('completed'), {
      timeoutMs: 30_000,
    });
    // Several relay ticks later, still one event per transition.
    await new Promise((resolve) => setTimeout(resolve, 2_000));

    expect(eventsOf('cmp_main')).toEqual(['scheduled', 'started', 'paused', 'resumed', 'completed']);
    expect(eventsOf('cmp_stop')).toEqual(['scheduled', 'started', 'stopped']);
    expect(eventsOf('cmp_fail')).toEqual(['scheduled', 'failed']);
    expect(new Set(seen.map((e) => e.value.eventId)).size).toBe(seen.length);
    const unpublished = (await ds.query(
      'SELECT COUNT(*) AS n FROM run_events WHERE published_at IS NULL',
    )) as {
      n: string | number;
    }[];
    expect(Number(unpublished[0]?.n)).toBe(0);

    // Keyed by campaign (one partition each), with the state entered and the run's counters then.
    const main = seen.filter((e) => e.value.campaignId === 'cmp_main');
    expect(new Set(main.map((e) => `${e.key}/${e.partition}`))).toEqual(
      new Set([`cmp_main/${main[0]?.partition}`]),
    );
    expect(main.map((e) => [e.value.previousState, e.value.state])).toEqual([
      ['PENDING', 'SCHEDULED'],
      ['SCHEDULED', 'RUNNING'],
      ['RUNNING', 'PAUSED'],
      ['PAUSED', 'RUNNING'],
      ['RUNNING', 'COMPLETED'],
    ]);
    expect(main.at(-1)?.value.counters).toMatchObject({ total: 20_000, pending: 0, sending: 0 });
    expect(main[2]?.value.counters.total).toBeGreaterThan(0);

    // CloudEvents headers, the run as subject.
    for (const e of seen) {
      expect(e.headers).toMatchObject({
        ce_specversion: '1.0',
        ce_id: e.value.eventId,
        ce_type: 'io.ums.campaign.lifecycle.v1',
        ce_source: '/ums/campaign-scheduler',
        ce_subject: e.value.runId,
        ce_time: e.value.occurredAt,
        'content-type': 'application/json',
      });
    }

    // The run's history over the API: the same events, in the same order.
    const history = await call('GET', `/v1/campaigns/cmp_main/runs/${mainRun}/events`);
    expect(history.status).toBe(200);
    expect((history.body['items'] as { eventId: string }[]).map((e) => e.eventId)).toEqual(
      main.map((e) => e.value.eventId),
    );
    const after = (history.body['items'] as { id: string }[])[2]?.id ?? '';
    const tail = await call('GET', `/v1/campaigns/cmp_main/runs/${mainRun}/events?after=${after}`);
    expect((tail.body['items'] as { event: string }[]).map((e) => e.event)).toEqual(['resumed', 'completed']);
    expect((await call('GET', `/v1/campaigns/cmp_main/runs/${mainRun}/events?after=x`)).status).toBe(400);
    expect((await call('GET', `/v1/campaigns/cmp_stop/runs/${mainRun}/events`)).status).toBe(404);
  });
});
