import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AllTopics } from '@ums/contracts';
import { createDataSource, ensureTopics, KafkaNames, runPendingMigrations } from '@ums/platform';
import {
  bearer,
  createTenantKey,
  createTestDatabase,
  insertSimulatorCredential,
  jsonCall,
  type JsonAnswer,
  serviceEnv,
  type ServiceProcess,
  SimulatorClient,
  startServiceProcess,
  testKafka,
  waitUntil,
  workspaceRoot,
} from '@ums/testing';
import type { DataSource } from 'typeorm';

jest.setTimeout(300_000);

const CLI = join(workspaceRoot(), 'apps', 'ums-cli', 'bin', 'ums.js');

/** The n-th test number in E.164, `+4915100003001` on. */
const phone = (n: number): string => `+49151${String(3000 + n).padStart(8, '0')}`;

/**
 * A campaign fed by a contact list, run end to end: campaign-scheduler, batch-expander,
 * notification-sender and the provider simulator as processes on MariaDB, Kafka and Redis. An
 * opt-out recorded after the list was imported and copied into the campaign still stops the send to
 * that member: the run applies opt-outs when it expands the audience and when it claims each message.
 */
describe('a list-fed campaign run (scheduler, expander, sender and simulator processes)', () => {
  let db: Awaited<ReturnType<typeof createTestDatabase>>;
  let ds: DataSource;
  let scheduler: ServiceProcess;
  let simulator: SimulatorClient;
  const processes: ServiceProcess[] = [];
  let key = '';

  beforeAll(async () => {
    db = await createTestDatabase('contact_lists_run');
    ds = createDataSource(db.settings);
    await ds.initialize();
    await runPendingMigrations(ds);
    const namespace = `t-${randomBytes(4).toString('hex')}`;
    await ensureTopics(testKafka(), AllTopics, 1, new KafkaNames(namespace));
    const env = { ...serviceEnv(db.settings.database, namespace), SCHEDULER_TICK_MS: '200' };
    const start = async (app: string, extra: Record<string, string> = {}): Promise<ServiceProcess> => {
      // Generous: on a busy machine a service takes a while to boot.
      const started = await startServiceProcess({ app, env: { ...env, ...extra }, readyTimeoutMs: 240_000 });
      processes.push(started);
      return started;
    };
    const sim = await start('provider-simulator', { LOG_LEVEL: 'error' });
    simulator = new SimulatorClient(sim.url);
    [scheduler] = await Promise.all([
      start('campaign-scheduler', { CONTACT_LIST_COPY_ROWS: '2' }),
      start('batch-expander', { EXPANDER_BATCH_SIZE: '2', EXPANDER_POLL_MS: '100' }),
      start('notification-sender', { RATE_LIMIT_KEY_PREFIX: `t:${namespace}:` }),
    ]);
    await insertSimulatorCredential(db.settings, {
      id: 'cred_lists',
      tenantId: 'tenant-l',
      baseUrl: sim.url,
      ceilingPerSec: 200,
      floorPerSec: 200,
    });
    await simulator.putCredential('cred_lists', { provider: 'simulator', callbacks: { enabled: false } });
    key = await createTenantKey(scheduler.url, 'tenant-l');
  });

  afterAll(async () => {
    await Promise.all(processes.map((p) => p.process.stop()));
    await ds?.destroy();
    await db?.drop();
  });

  function call(method: string, path: string, body?: unknown): Promise<JsonAnswer> {
    return jsonCall(scheduler.url, method, path, body, key);
  }

  it('sends to the members in the segment and skips the one opted out after the import', async () => {
    const list = await call('POST', '/v1/contact-lists', { name: 'customers', channel: 'sms' });
    expect(list.status).toBe(201);
    const listId = String(list.body['id']);
    const csv = [
      'phone,name,tier',
      ...[1, 2, 3, 4, 5].map((n) => `${phone(n)},P${n},vip`),
      `${phone(6)},P6,basic`,
    ];
    const form = new FormData();
    form.append('file', new Blob([`${csv.join('\n')}\n`], { type: 'text/csv' }), 'customers.csv');
    const imported = await fetch(`${scheduler.url}/v1/contact-lists/${listId}/imports`, {
      method: 'POST',
      headers: bearer(key),
      body: form,
    });
    expect(await imported.json()).toMatchObject({ state: 'COMPLETED', rowsAccepted: 6 });

    const created = await call('POST', '/v1/campaigns', {
      name: 'vip news',
      channel: 'sms',
      credentialId: 'cred_lists',
      template: { text: 'Hello {{name}}' },
      schedule: { kind: 'now' },
    });
    expect(created.status).toBe(201);
    const campaignId = String(created.body['id']);
    const used = await call('POST', `/v1/campaigns/${campaignId}/audience/lists`, {
      listId,
      segment: { attributes: { tier: 'vip' } },
    });
    expect(used.body).toMatchObject({ source: 'list', rowsAccepted: 5 });
    // Member 3 opts out after the list was imported and copied.
    expect((await call('PUT', `/v1/opt-outs/sms/${encodeURIComponent(phone(3))}`)).status).toBe(200);

    expect((await call('POST', `/v1/campaigns/${campaignId}/start`)).status).toBe(200);
    let rows: { recipient: string; state: string; reason: string | null }[] = [];
    await waitUntil(
      'the run settled',
      async () => {
        rows = (await ds.query(
          `SELECT m.recipient, m.state, m.reason FROM messages m JOIN runs r ON r.id = m.run_id
            WHERE r.campaign_id = ? ORDER BY m.recipient`,
          [campaignId],
        )) as typeof rows;
        return rows.length === 5 && rows.every((r) => r.state === 'SENT' || r.state === 'SKIPPED');
      },
      { timeoutMs: 120_000, intervalMs: 200 },
    );
    const sent = { state: 'SENT', reason: null };
    expect(rows).toEqual([
      { recipient: phone(1), ...sent },
      { recipient: phone(2), ...sent },
      { recipient: phone(3), state: 'SKIPPED', reason: 'opted-out' },
      { recipient: phone(4), ...sent },
      { recipient: phone(5), ...sent },
    ]);
    const stats = await simulator.stats('cred_lists');
    expect([stats.distinctMessages, stats.duplicates]).toEqual([4, 0]);
  });

  it('is driven by the CLI: lists create, import, show, members and campaigns use-list --where', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ums-lists-'));
    const ums = (...args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> =>
      new Promise((resolve, reject) => {
        const child = spawn(process.execPath, [CLI, ...args], {
          env: { UMS_API_URL: scheduler.url, UMS_API_KEY: key },
          stdio: ['ignore', 'pipe', 'pipe'],
        });
        const out: Buffer[] = [];
        const err: Buffer[] = [];
        child.stdout.on('data', (chunk: Buffer) => out.push(chunk));
        child.stderr.on('data', (chunk: Buffer) => err.push(chunk));
        child.once('error', reject);
        child.once('close', (code) =>
          resolve({ code, stdout: Buffer.concat(out).toString(), stderr: Buffer.concat(err).toString() }),
        );
      });
    try {
      const created = await ums('lists', 'create', '--name', 'cli list', '--channel', 'sms', '--json');
      expect(created.code).toBe(0);
      const listId = String((JSON.parse(created.stdout) as { id: string }).id);
      const file = join(dir, 'members.csv');
      writeFileSync(file, `phone,name,city\n${phone(11)},A,Berlin\n${phone(12)},B,Paris\nnobody,C,Berlin\n`);
      const imported = await ums('lists', 'import', listId, '--file', file);
      expect(imported.code).toBe(0);
      expect(imported.stdout).toMatch(/accepted:\s+2\n/);
      expect(imported.stdout).toMatch(/4\s+phone number contains letters/);
      expect((await ums('lists', 'show', listId)).stdout).toMatch(/members:\s+2\n/);
      expect((await ums('lists', 'members', listId)).stdout).toContain(phone(12));

      const campaign = await call('POST', '/v1/campaigns', {
        name: 'cli',
        channel: 'sms',
        credentialId: 'cred_lists',
        template: { text: 'Hi {{name}}' },
        schedule: { kind: 'now' },
      });
      const campaignId = String(campaign.body['id']);
      const used = await ums('campaigns', 'use-list', campaignId, listId, '--where', 'city=Berlin', '--json');
      expect(used.code).toBe(0);
      expect(JSON.parse(used.stdout)).toMatchObject({ source: 'list', rowsRead: 1, rowsAccepted: 1 });
      const bad = await ums('campaigns', 'use-list', campaignId, listId, '--where', 'ci-ty=Berlin');
      expect(bad.code).toBe(1);
      expect(bad.stderr).toContain('CONTACT_LIST_SEGMENT_INVALID');
      expect((await ums('campaigns', 'use-list', campaignId, listId, '--where', 'Berlin')).code).toBe(2);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
