import { randomBytes } from 'node:crypto';
import { AllTopics, Topics } from '@ums/contracts';
import { createDataSource, ensureTopics, KafkaNames, runPendingMigrations } from '@ums/platform';
import {
  BatchProbe,
  createTestDatabase,
  seedCampaign,
  serviceEnv,
  type ServiceProcess,
  startServiceProcess,
  testBrokers,
  testKafka,
  waitUntil,
} from '@ums/testing';
import type { DataSource } from 'typeorm';

jest.setTimeout(600_000);

/**
 * 200 batches, ten windows of them: each fault lands with a window of batches in flight and most of the
 * run still to go.
 */
const RECIPIENTS = 20_000;
const BATCH_SIZE = 100;
const STEP = 5;
const WINDOW = 20;

interface RunRow {
  state: string;
  cursor: number;
  attempts: number;
  epoch: number;
  owner: string | null;
  batchesPublished: number;
  expanded: boolean;
}

describe('batch expansion under faults (real Kafka, MariaDB, processes)', () => {
  let db: Awaited<ReturnType<typeof createTestDatabase>>;
  let ds: DataSource;
  /** The administrator's: PROCESSLIST shows other accounts' threads only to one with PROCESS. */
  let adminDs: DataSource;
  let namespace: string;
  const processes: ServiceProcess[] = [];
  const expanders: ServiceProcess[] = [];
  const probes: BatchProbe[] = [];

  beforeAll(async () => {
    db = await createTestDatabase('expander_faults');
    ds = createDataSource(db.settings);
    await ds.initialize();
    await runPendingMigrations(ds);
    adminDs = await createDataSource(db.admin).initialize();
    namespace = `t-${randomBytes(4).toString('hex')}`;
    await ensureTopics(testKafka(), AllTopics, 1, new KafkaNames(namespace));
    await startScheduler();
  });

  afterAll(async () => {
    await Promise.all(processes.map((p) => p.process.stop()));
    await Promise.all(probes.map((p) => p.stop()));
    await ds.destroy();
    await adminDs.destroy();
    await db.drop();
  });

  const env = (): Record<string, string> => serviceEnv(db.settings.database, namespace);

  async function startScheduler(): Promise<ServiceProcess> {
    const scheduler = await startServiceProcess({
      app: 'campaign-scheduler',
      env: {
        ...env(),
        CHECKPOINT_DEADLINE_MS: '3000',
        RUN_MAX_ATTEMPTS: '30',
        SWEEPER_TICK_MS: '200',
        SCHEDULER_TICK_MS: '200',
      },
    });
    processes.push(scheduler);
    return scheduler;
  }

  async function startExpander(instance: string): Promise<ServiceProcess> {
    const expander = await startServiceProcess({
      app: 'batch-expander',
      instance,
      env: {
        ...env(),
        EXPANDER_BATCH_SIZE: String(BATCH_SIZE),
        EXPANDER_BATCHES_PER_STEP: String(STEP),
        EXPANDER_MAX_BATCHES_AHEAD: String(WINDOW),
        EXPANDER_POLL_MS: '100',
      },
    });
    processes.push(expander);
    expanders.push(expander);
    return expander;
  }

  async function startProbe(label: string, finishDelayMs = 0): Promise<BatchProbe> {
    const probe = await BatchProbe.start({
      brokers: testBrokers(),
      topic: new KafkaNames(namespace).topic(Topics.batches.name),
      groupId: `probe-${label}`,
      finishIn: db.settings,
      finishDelayMs,
    });
    probes.push(probe);
    return probe;
  }

  /**
   * SIGSTOPs a process at a moment it holds no open transaction in this test's database. A process
   * frozen inside one keeps its row locks (the run row, among others) until it wakes or is killed,
   * which in Kubernetes the liveness probe does; the sweeper's UPDATE would wait for it, and nothing
   * could take the run over (seen in 1 run of 3: the retry came only when the test woke it).
   */
  async function freezeOutsideTransaction(pid: number): Promise<void> {
    for (let attempt = 1; ; attempt++) {
      process.kill(pid, 'SIGSTOP');
      await new Promise((resolve) => setTimeout(resolve, 300));
      const [open] = (await adminDs.query(
        `SELECT COUNT(*) AS n FROM information_schema.INNODB_TRX t
           JOIN information_schema.PROCESSLIST p ON p.ID = t.trx_mysql_thread_id
          WHERE p.DB = ? AND t.trx_mysql_thread_id <> CONNECTION_ID()`,
        [db.settings.database],
      )) as { n: number | string }[];
      // Another process's short transaction may show too: that only costs one more try.
      if (Number(open?.n) === 0) return;
      if (attempt === 50) throw new Error('the process was inside a transaction at each of 50 freezes');
      process.kill(pid, 'SIGCONT');
      await new Promise((resolve) => setTimeout(resolve, 20 + Math.random() * 100));
    }
  }

  async function createRun(campaignId: string): Promise<string> {
    const result = (await ds.query(
      `INSERT INTO runs (campaign_id, fire_at, state) VALUES (?, UTC_TIMESTAMP(3), 'PENDING')`,
      [campaignId],
    )) as { insertId: number };
    return String(result.insertId);
  }

  async function runRow(runId: string): Promise<RunRow> {
    const rows = (await ds.query(
      `SELECT state, checkpoint_cursor, attempts, lease_epoch, lease_owner, batches_published, expanded_at
         FROM runs WHERE id = ?`,
      [runId],
    )) as Record<string, unknown>[];
    const row = rows[0] as Record<string, unknown>;
    return {
      state: String(row['state']),
      cursor: Number(row['checkpoint_cursor']),
      attempts: Number(row['attempts']),
      epoch: Number(row['lease_epoch']),
      owner: row['lease_owner'] === null ? null : String(row['lease_owner']),
      batchesPublished: Number(row['batches_published']),
      expanded: row['expanded_at'] !== null,
    };
  }

  async function assertEveryRecipientOnce(
    campaignId: string,
    runId: string,
    probe: BatchProbe,
  ): Promise<void> {
    const [counts] = (await ds.query(
      `SELECT COUNT(*) AS n, COUNT(DISTINCT contact_id) AS contacts FROM messages WHERE run_id = ?`,
      [runId],
    )) as Record<string, unknown>[];
    const [audience] = (await ds.query('SELECT COUNT(*) AS n FROM contacts WHERE campaign_id = ?', [
      campaignId,
    ])) as Record<string, unknown>[];
    expect(Number(audience?.['n'])).toBe(RECIPIENTS);
    expect(Number(counts?.['n'])).toBe(RECIPIENTS);
    expect(Number(counts?.['contacts'])).toBe(RECIPIENTS);
    const ids = (await ds.query('SELECT id FROM messages WHERE run_id = ?', [runId])) as { id: string }[];
    // Another test's probe may have finished the run first: let this one read to the end of the topic.
    await waitUntil(
      'probe saw every message',
      () => ids.every((row) => probe.timesSeen.has(String(row.id))),
      {
        timeoutMs: 120_000,
        intervalMs: 200,
      },
    ).catch(() => undefined);
    const unpublished = ids.filter((row) => !probe.timesSeen.has(String(row.id)));
    expect(unpublished).toHaveLength(0);
  }

  it('resumes from its checkpoint after each SIGKILL: one message row per recipient, each published, bounded overlap', async () => {
    const campaignId = 'cmp_kill';
    await seedCampaign(db.settings, {
      campaignId,
      tenantId: 'tenant-a',
      credentialId: 'cred_kill',
      contacts: RECIPIENTS,
    });
    // A sender a little slower than the expander: a window of batches is in flight at every kill.
    const probe = await startProbe('kill', 3);
    const expander = await startExpander('kill');
    const runId = await createRun(campaignId);

    const kills: { cursorAtKill: number; cursorResumedFrom: number }[] = [];
    for (const threshold of [0.2, 0.45, 0.7].map((share) => share * RECIPIENTS)) {
      await waitUntil(`checkpoint past ${threshold}`, async () => (await runRow(runId)).cursor >= threshold, {
        timeoutMs: 120_000,
        intervalMs: 20,
        abortIf: expander.process.exitedUnexpectedly,
      });
      await expander.process.kill();
      const atKill = await runRow(runId);
      await expander.restart();
      // The sweeper sees the stale checkpoint, bumps the epoch and re-requests the run; the new process takes it.
      await waitUntil(
        'the run re-requested and taken by the restarted expander',
        async () => {
          const row = await runRow(runId);
          return row.attempts > atKill.attempts && row.owner !== null && row.cursor >= atKill.cursor;
        },
        { timeoutMs: 90_000, intervalMs: 100, abortIf: expander.process.exitedUnexpectedly },
      );
      const resumed = await runRow(runId);
      kills.push({ cursorAtKill: atKill.cursor, cursorResumedFrom: resumed.cursor });
      expect(resumed.cursor).toBeGreaterThanOrEqual(atKill.cursor); // never restarts from the beginning
    }

    await waitUntil('run expanded and completed', async () => (await runRow(runId)).state === 'COMPLETED', {
      timeoutMs: 180_000,
      intervalMs: 200,
      abortIf: expander.process.exitedUnexpectedly,
    });
    const final = await runRow(runId);
    expect(final.expanded).toBe(true);
    expect(final.attempts).toBeGreaterThanOrEqual(3);
    await assertEveryRecipientOnce(campaignId, runId, probe);
    // Per crash at most one window of batches (plus the step in flight) is published again.
    const { extraCopies } = probe.duplicates();
    expect(extraCopies).toBeLessThanOrEqual(kills.length * (WINDOW + STEP) * BATCH_SIZE);
    const [counters] = (await ds.query('SELECT total, pending, sent FROM runs WHERE id = ?', [
      runId,
    ])) as Record<string, unknown>[];
    expect(Number(counters?.['total'])).toBe(RECIPIENTS);
    expect(Number(counters?.['sent'])).toBe(RECIPIENTS);
    expect(Number(counters?.['pending'])).toBe(0);
    process.stdout.write(
      `expander SIGKILL test: kills=${JSON.stringify(kills)} re-published copies=${extraCopies} batches=${probe.batches.length}\n`,
    );
  });

  it('hands its run to another expander on SIGTERM, without waiting for the sweeper', async () => {
    const campaignId = 'cmp_handoff';
    await seedCampaign(db.settings, {
      campaignId,
      tenantId: 'tenant-c',
      credentialId: 'cred_handoff',
      contacts: RECIPIENTS,
    });
    // A slow sender keeps the run going long enough to stop its expander in the middle.
    const probe = await BatchProbe.start({
      brokers: testBrokers(),
      topic: new KafkaNames(namespace).topic(Topics.batches.name),
      groupId: 'probe-handoff',
      finishIn: db.settings,
      finishDelayMs: 5,
    });
    probes.push(probe);
    while (expanders.filter((e) => e.process.running).length < 2)
      await startExpander(`handoff-${expanders.length}`);
    const runId = await createRun(campaignId);
    await waitUntil('expansion under way', async () => (await runRow(runId)).cursor >= 0.2 * RECIPIENTS, {
      timeoutMs: 120_000,
      intervalMs: 20,
    });
    const owner = (await runRow(runId)).owner as string;
    const holder = expanders.find((p) => p.process.running && owner.includes(`:${String(p.process.pid)}:`));
    if (holder === undefined) throw new Error(`lease owner ${owner} is not a running expander`);
    const before = await runRow(runId);
    expect(await holder.process.stop()).toBe(0);
    const after = await waitUntil(
      'another expander took the run over',
      async () => {
        const row = await runRow(runId);
        return row.owner !== null && row.owner !== owner ? row : undefined;
      },
      { timeoutMs: 60_000, intervalMs: 50 },
    );
    expect(after.attempts).toBe(before.attempts); // handed over, not swept as stale
    expect(after.epoch).toBe(before.epoch + 1);
    expect(after.cursor).toBeGreaterThanOrEqual(before.cursor);
    await holder.restart();
    await waitUntil('run completed', async () => (await runRow(runId)).state === 'COMPLETED', {
      timeoutMs: 180_000,
      intervalMs: 200,
    });
    expect((await runRow(runId)).attempts).toBe(before.attempts);
    await assertEveryRecipientOnce(campaignId, runId, probe);
  });

  it('retries a run whose expander froze, and fences the frozen expander out when it wakes', async () => {
    const campaignId = 'cmp_freeze';
    await seedCampaign(db.settings, {
      campaignId,
      tenantId: 'tenant-b',
      credentialId: 'cred_freeze',
      contacts: RECIPIENTS,
    });
    const probe = await startProbe('freeze');
    while (expanders.filter((e) => e.process.running).length < 2)
      await startExpander(`freeze-${expanders.length}`);
    const runId = await createRun(campaignId);
    await waitUntil('expansion under way', async () => (await runRow(runId)).cursor >= 0.15 * RECIPIENTS, {
      timeoutMs: 120_000,
      intervalMs: 20,
    });
    const owner = (await runRow(runId)).owner as string;
    // Two expanders are running (this test's and the previous one's): freeze whichever holds the lease.
    const frozen = expanders.find((p) => p.process.running && owner.includes(`:${String(p.process.pid)}:`));
    const other = expanders.find((p) => p.process.running && p !== frozen);
    if (frozen === undefined || other === undefined)
      throw new Error(`lease owner ${owner} is not a running expander`);
    const frozenPid = frozen.process.pid as number;
    await freezeOutsideTransaction(frozenPid);
    const atFreeze = await runRow(runId);
    // Wake it once the run has been retried and taken over.
    let takenOver: RunRow;
    try {
      takenOver = await waitUntil(
        'the sweeper retried the run and another expander took it',
        async () => {
          const row = await runRow(runId);
          return row.attempts > atFreeze.attempts && row.owner !== null && row.owner !== owner
            ? row
            : undefined;
        },
        { timeoutMs: 120_000, intervalMs: 100, abortIf: other.process.exitedUnexpectedly },
      );
    } finally {
      process.kill(frozenPid, 'SIGCONT');
    }
    expect(takenOver.epoch).toBeGreaterThan(atFreeze.epoch);
    // The woken expander finishes its step, its checkpoint is refused (epoch), and it lets go of the run.
    await waitUntil(
      'the woken expander fenced out',
      async () => {
        const metrics = await (await fetch(`${frozen.managementUrl}/metrics`)).text();
        const match = /^ums_expander_fenced_total\{[^}]*\} (\d+)/m.exec(metrics);
        return match !== null && Number(match[1]) >= 1;
      },
      { timeoutMs: 60_000, intervalMs: 200, abortIf: frozen.process.exitedUnexpectedly },
    );
    await waitUntil('run completed', async () => (await runRow(runId)).state === 'COMPLETED', {
      timeoutMs: 180_000,
      intervalMs: 200,
    });
    const final = await runRow(runId);
    expect(final.expanded).toBe(true);
    const [last] = (await ds.query('SELECT MAX(id) AS id FROM contacts WHERE campaign_id = ?', [
      campaignId,
    ])) as {
      id: string;
    }[];
    expect(final.cursor).toBe(Number(last?.id)); // the checkpoint reached the end, and nobody moved it back
    expect(final.owner === null || !final.owner.includes(`:${String(frozenPid)}:`)).toBe(true);
    await assertEveryRecipientOnce(campaignId, runId, probe);
  });
});
