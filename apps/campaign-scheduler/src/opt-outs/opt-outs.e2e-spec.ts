import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  AllTopics,
  Channel,
  type OptOutImportSummary,
  type OptOutPage,
  type SendRequestV1,
  SendRequestKind,
  Topics,
} from '@ums/contracts';
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
import type { Producer } from 'kafkajs';
import type { DataSource } from 'typeorm';

jest.setTimeout(300_000);

const BATCH = 10;
const CHUNK_ROWS = 3;
const CLI = join(workspaceRoot(), 'apps', 'ums-cli', 'bin', 'ums.js');

/** The n-th test number, `+4915100001000` on, in E.164 and as people write it. */
const phone = (n: number): string => `+49151${String(1000 + n).padStart(8, '0')}`;
const spaced = (n: number): string => {
  const e164 = phone(n);
  return `${e164.slice(0, 3)} ${e164.slice(3, 6)} ${e164.slice(6, 10)} ${e164.slice(10)}`;
};

/**
 * Opt-outs of a tenant through the campaign API and the CLI, and what they do to sends: the
 * campaign-scheduler, batch-expander, notification-sender and provider simulator run as processes on
 * MariaDB, Kafka and Redis.
 */
describe('opt-outs (scheduler, expander, sender and simulator processes)', () => {
  let db: Awaited<ReturnType<typeof createTestDatabase>>;
  let ds: DataSource;
  let names: KafkaNames;
  let producer: Producer;
  let scheduler: ServiceProcess;
  let simulator: SimulatorClient;
  let dir: string;
  const processes: ServiceProcess[] = [];
  let keyA = '';
  let keyB = '';

  beforeAll(async () => {
    db = await createTestDatabase('opt_outs');
    ds = createDataSource(db.settings);
    await ds.initialize();
    await runPendingMigrations(ds);
    const namespace = `t-${randomBytes(4).toString('hex')}`;
    names = new KafkaNames(namespace);
    await ensureTopics(testKafka(), AllTopics, 1, names);
    const env = { ...serviceEnv(db.settings.database, namespace), SCHEDULER_TICK_MS: '200' };
    const start = async (app: string, extra: Record<string, string> = {}): Promise<ServiceProcess> => {
      const started = await startServiceProcess({ app, env: { ...env, ...extra } });
      processes.push(started);
      return started;
    };
    const sim = await start('provider-simulator', { LOG_LEVEL: 'error' });
    simulator = new SimulatorClient(sim.url);
    [scheduler] = await Promise.all([
      start('campaign-scheduler', { AUDIENCE_INSERT_CHUNK_ROWS: String(CHUNK_ROWS) }),
      // One batch in flight and one step of one batch prepared: the least an opt-out can wait for.
      start('batch-expander', {
        EXPANDER_BATCH_SIZE: String(BATCH),
        EXPANDER_BATCHES_PER_STEP: '1',
        EXPANDER_MAX_BATCHES_AHEAD: '1',
        EXPANDER_POLL_MS: '100',
      }),
      start('notification-sender', { RATE_LIMIT_KEY_PREFIX: `t:${namespace}:` }),
    ]);
    for (const [id, rate] of [
      ['cred_fast', 500],
      ['cred_slow', 25],
    ] as const) {
      await insertSimulatorCredential(db.settings, {
        id,
        tenantId: 'tenant-a',
        baseUrl: sim.url,
        ceilingPerSec: rate,
        floorPerSec: rate,
      });
      await simulator.putCredential(id, { provider: 'simulator', callbacks: { enabled: false } });
    }
    [keyA, keyB] = await Promise.all([
      createTenantKey(scheduler.url, 'tenant-a'),
      createTenantKey(scheduler.url, 'tenant-b'),
    ]);
    producer = testKafka().producer();
    await producer.connect();
    dir = mkdtempSync(join(tmpdir(), 'ums-opt-outs-'));
  });

  afterAll(async () => {
    await Promise.all(processes.map((p) => p.process.stop()));
    await producer?.disconnect();
    await ds?.destroy();
    await db?.drop();
    if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
  });

  function call(method: string, path: string, body?: unknown, key = keyA): Promise<JsonAnswer> {
    return jsonCall(scheduler.url, method, path, body, key);
  }

  const optOutPath = (channel: string, address: string): string =>
    `/v1/opt-outs/${channel}/${encodeURIComponent(address)}`;

  async function list(query = '', key = keyA): Promise<OptOutPage> {
    const answer = await call('GET', `/v1/opt-outs${query}`, undefined, key);
    expect(answer.status).toBe(200);
    return answer.body as unknown as OptOutPage;
  }

  /** Every opt-out of a tenant as `channel address source`, sorted. */
  async function everything(key = keyA): Promise<string[]> {
    const page = await list('?limit=1000', key);
    return page.items.map((o) => `${o.channel} ${o.address} ${o.source}`).sort();
  }

  async function upload(csv: string, key = keyA, query = '', field = 'file'): Promise<JsonAnswer> {
    const form = new FormData();
    form.append(field, new Blob([csv], { type: 'text/csv' }), 'opt-outs.csv');
    const response = await fetch(`${scheduler.url}/v1/opt-outs/import${query}`, {
      method: 'POST',
      headers: bearer(key),
      body: form,
    });
    const text = await response.text();
    return { status: response.status, text, body: JSON.parse(text) as Record<string, unknown> };
  }

  async function exportCsv(key = keyA, query = ''): Promise<string> {
    const response = await fetch(`${scheduler.url}/v1/opt-outs/export.csv${query}`, { headers: bearer(key) });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^text\/csv/);
    return response.text();
  }

  const errorOf = (answer: JsonAnswer): { code?: string; fields?: { field: string }[] } =>
    (answer.body['error'] ?? {}) as { code?: string; fields?: { field: string }[] };

  it('adds, lists, finds and removes opt-outs of the caller tenant only, every spelling one entry', async () => {
    const added = await call('PUT', optOutPath('sms', spaced(1)));
    expect(added.status).toBe(200);
    expect(added.body).toMatchObject({
      tenantId: 'tenant-a',
      channel: 'sms',
      address: phone(1),
      source: 'api',
    });
    // The same number again, spelled otherwise: the entry as first recorded.
    const again = await call('PUT', optOutPath('sms', `0049${phone(1).slice(3)}`));
    expect(again.body).toEqual(added.body);
    expect((await call('PUT', optOutPath('sms', '015100001002') + '?defaultCountry=de')).body).toMatchObject({
      address: phone(2),
    });
    expect((await call('PUT', optOutPath('whatsapp', phone(1)))).status).toBe(200);
    expect((await call('PUT', optOutPath('email', ' Ana@Example.COM '))).body).toMatchObject({
      address: 'Ana@example.com',
    });
    expect(await everything()).toEqual([
      'email Ana@example.com api',
      `sms ${phone(1)} api`,
      `sms ${phone(2)} api`,
      `whatsapp ${phone(1)} api`,
    ]);

    // Keyset pages in (channel, address) order.
    const first = await list('?limit=3');
    expect(first.items.map((o) => o.channel)).toEqual(['email', 'sms', 'sms']);
    expect(first.nextAfter).toBe(`sms:${phone(2)}`);
    const second = await list(`?limit=3&after=${encodeURIComponent(first.nextAfter ?? '')}`);
    expect(second).toMatchObject({ items: [{ channel: 'whatsapp', address: phone(1) }], nextAfter: null });
    expect((await list('?channel=sms')).items.map((o) => o.address)).toEqual([phone(1), phone(2)]);
    // One address, any spelling: on every channel that reads it, or on the one named.
    const found = await list(`?address=${encodeURIComponent(spaced(1))}`);
    expect(found.items.map((o) => o.channel)).toEqual(['sms', 'whatsapp']);
    expect((await list(`?channel=whatsapp&address=${encodeURIComponent(spaced(1))}`)).items).toHaveLength(1);

    // Another tenant sees none of them and cannot remove them; its own list is its own.
    expect((await list('', keyB)).items).toEqual([]);
    expect(await exportCsv(keyB)).toBe('channel,address,source,createdAt\n');
    const foreign = await call('DELETE', optOutPath('sms', phone(1)), undefined, keyB);
    expect([foreign.status, errorOf(foreign).code]).toEqual([404, 'OPT_OUT_NOT_FOUND']);

    const removed = await call('DELETE', optOutPath('whatsapp', spaced(1)));
    expect(removed.status).toBe(204);
    const gone = await call('DELETE', optOutPath('whatsapp', phone(1)));
    expect([gone.status, errorOf(gone).code]).toEqual([404, 'OPT_OUT_NOT_FOUND']);
    expect(await everything()).not.toContain(`whatsapp ${phone(1)} api`);

    // Every change is in the audit trail, with the route and its outcome.
    const audit = await call('GET', '/v1/audit-events?limit=50');
    const actions = (audit.body['items'] as { action: string; status: number }[]).map(
      (e) => `${e.action} ${e.status}`,
    );
    expect(actions).toEqual(
      expect.arrayContaining([
        'PUT /v1/opt-outs/:channel/:address 200',
        'DELETE /v1/opt-outs/:channel/:address 204',
        'DELETE /v1/opt-outs/:channel/:address 404',
      ]),
    );
  });

  it('refuses bad input with 4xx naming the field, never a 500', async () => {
    const cases: [Promise<JsonAnswer>, number, string, string | undefined][] = [
      [call('PUT', optOutPath('fax', phone(1))), 400, 'VALIDATION_FAILED', 'channel'],
      [call('PUT', optOutPath('sms', 'hello')), 400, 'OPT_OUT_ADDRESS_INVALID', 'address'],
      [call('PUT', optOutPath('sms', '0151 00001003')), 400, 'OPT_OUT_ADDRESS_INVALID', 'address'],
      [call('PUT', optOutPath('email', phone(1))), 400, 'OPT_OUT_ADDRESS_INVALID', 'address'],
      [
        call('PUT', `${optOutPath('sms', phone(1))}?defaultCountry=XX`),
        400,
        'VALIDATION_FAILED',
        'defaultCountry',
      ],
      [call('DELETE', optOutPath('sms', 'x'.repeat(321))), 400, 'VALIDATION_FAILED', 'address'],
      [call('GET', '/v1/opt-outs?limit=0'), 400, 'VALIDATION_FAILED', 'limit'],
      [call('GET', '/v1/opt-outs?after=nowhere'), 400, 'VALIDATION_FAILED', 'after'],
      [call('GET', '/v1/opt-outs?channel=fax'), 400, 'VALIDATION_FAILED', 'channel'],
      [call('GET', '/v1/opt-outs?address=nobody'), 400, 'OPT_OUT_ADDRESS_INVALID', 'address'],
      [call('POST', '/v1/opt-outs/import', { rows: [] }), 415, 'UNSUPPORTED_MEDIA_TYPE', undefined],
      [
        upload('channel,address\nsms,+4915100001003\n', keyA, '', 'other'),
        400,
        'OPT_OUT_FILE_MISSING',
        'file',
      ],
      [upload('phone,source\n+4915100001003,x\n'), 400, 'OPT_OUT_HEADER_INVALID', 'header'],
      [upload('\n\n'), 400, 'OPT_OUT_HEADER_INVALID', 'header'],
      [upload('channel,address\nsms,"+4915100001003\n'), 400, 'AUDIENCE_CSV_MALFORMED', 'file'],
    ];
    const answers = await Promise.all(cases.map(([answer]) => answer));
    const seen = answers.map((answer, i) => {
      const error = errorOf(answer);
      return [answer.status, error.code, cases[i]?.[3] === undefined ? undefined : error.fields?.[0]?.field];
    });
    expect(seen).toEqual(cases.map(([, status, code, field]) => [status, code, field]));
    // Nothing refused was stored.
    expect((await list('?channel=sms')).items.map((o) => o.address)).toEqual([phone(1), phone(2)]);
    // A long address fits in the path (Fastify's default limit of a path parameter is 100 characters).
    const long = `${'a'.repeat(64)}@${'b'.repeat(60)}.${'c'.repeat(60)}.example`;
    expect((await call('PUT', optOutPath('email', long))).body).toMatchObject({ address: long });
    expect((await call('DELETE', optOutPath('email', long))).status).toBe(204);
  });

  it('imports a CSV in chunks: bad rows reported with line and reason, every accepted row kept', async () => {
    const csv = [
      'Channel, Address ,source,ignored',
      `sms,${spaced(3)},crm,x`,
      `sms,${phone(1)},,x`, // opted out already (through the API)
      'sms,,,x', // no address
      '',
      `fax,${phone(4)},,x`,
      `whatsapp,0049 151 00001004,,x`,
      `email,bob@example.org,newsletter form,x`,
      `sms,${phone(3)},again,x`, // the first data row's number, written otherwise
      'email,not-an-address,,x',
      `sms,${phone(5)},${'s'.repeat(65)},x`,
      `SMS,${phone(6)}`,
      `whatsapp,'+4915100001007,,x`, // as a spreadsheet-safe export writes a cell: read back without the quote
    ].join('\r\n');
    const answer = await upload(csv);
    expect(answer.status).toBe(200);
    const summary = answer.body as unknown as OptOutImportSummary;
    expect(summary).toEqual({
      rowsRead: 11,
      rowsAdded: 5,
      rowsDuplicate: 2,
      rowsRejected: 4,
      rejects: [
        { line: 4, reason: 'phone number is empty', raw: 'sms,,,x' },
        {
          line: 6,
          reason: 'channel must be one of whatsapp, sms, email, got "fax"',
          raw: `fax,${phone(4)},,x`,
        },
        { line: 10, reason: 'e-mail address has no @', raw: 'email,not-an-address,,x' },
        {
          line: 11,
          reason: 'source is longer than 64 characters',
          raw: `sms,${phone(5)},${'s'.repeat(65)},x`,
        },
      ],
      rejectsOmitted: 0,
    });
    expect(await everything()).toEqual([
      'email Ana@example.com api',
      'email bob@example.org newsletter form',
      `sms ${phone(1)} api`,
      `sms ${phone(2)} api`,
      `sms ${phone(3)} crm`,
      `sms ${phone(6)} import`,
      `whatsapp ${phone(4)} import`,
      `whatsapp ${phone(7)} import`,
    ]);
  });

  it('exports every opt-out as CSV that imports into another tenant unchanged', async () => {
    await call('PUT', optOutPath('email', '-dash@example.org'));
    const exported = await exportCsv();
    const lines = exported.trimEnd().split('\n');
    expect(lines[0]).toBe('channel,address,source,createdAt');
    // A cell a spreadsheet would evaluate is quoted away, and read back as it was.
    expect(lines).toEqual(expect.arrayContaining([expect.stringMatching(/^email,'-dash@example\.org,api,/)]));
    expect(lines).toHaveLength(1 + (await everything()).length);
    expect((await exportCsv(keyA, '?channel=email')).trimEnd().split('\n')).toHaveLength(4);

    const imported = await upload(exported, keyB);
    expect(imported.body).toMatchObject({
      rowsRead: lines.length - 1,
      rowsAdded: lines.length - 1,
      rowsRejected: 0,
    });
    expect(await everything(keyB)).toEqual(await everything(keyA));
    const reexported = await exportCsv(keyB);
    const withoutTimes = (csv: string): string[] =>
      csv.split('\n').map((line) => line.replace(/,[^,]*$/, ''));
    expect(withoutTimes(reexported)).toEqual(withoutTimes(exported));
  });

  it('is driven by the CLI: list, add, remove, import and export', async () => {
    const cli = async (
      ...args: string[]
    ): Promise<{ code: number | null; stdout: string; stderr: string }> => {
      const answer = await new Promise<{ code: number | null; stdout: string; stderr: string }>(
        (resolve, reject) => {
          const child = spawn(process.execPath, [CLI, ...args], {
            env: { UMS_API_URL: scheduler.url, UMS_API_KEY: keyB },
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
        },
      );
      expect(answer.stdout + answer.stderr).not.toContain(keyB);
      return answer;
    };
    const help = await cli('opt-outs', '--help');
    expect(help.stdout).toMatch(/list[\s\S]*add[\s\S]*remove[\s\S]*import[\s\S]*export/);
    expect((await cli('help', 'opt-outs', 'import')).stdout).toContain('--csv FILE');

    const added = await cli('opt-outs', 'add', 'sms', spaced(8), '--json');
    expect(added.code).toBe(0);
    expect(JSON.parse(added.stdout)).toMatchObject({ channel: 'sms', address: phone(8), source: 'api' });
    const table = await cli('opt-outs', 'list', '--channel', 'sms', '--limit', '2');
    expect(table.code).toBe(0);
    expect(table.stdout).toMatch(/^CHANNEL\s+ADDRESS\s+SOURCE\s+SINCE/);
    expect(table.stdout).toContain(`more: --after 'sms:`);
    const found = await cli('opt-outs', 'list', '--address', spaced(8), '--json');
    expect((JSON.parse(found.stdout) as OptOutPage).items.map((o) => o.address)).toEqual([phone(8)]);

    const file = join(dir, 'cli.csv');
    writeFileSync(file, `channel,address\nsms,${phone(9)}\nsms,nobody\n`);
    const imported = await cli('opt-outs', 'import', '--csv', file);
    expect(imported.code).toBe(0);
    expect(imported.stdout).toMatch(/added:\s+1\n/);
    expect(imported.stdout).toMatch(/3\s+phone number contains letters\s+sms,nobody/);

    const out = join(dir, 'export.csv');
    const exported = await cli('opt-outs', 'export', '--output', out, '--json');
    expect(exported.code).toBe(0);
    const rows = (await everything(keyB)).length;
    expect(JSON.parse(exported.stdout)).toMatchObject({ file: out, rows });
    expect(readFileSync(out, 'utf8').trimEnd().split('\n')).toHaveLength(rows + 1);

    expect((await cli('opt-outs', 'remove', 'sms', phone(8))).code).toBe(0);
    const missing = await cli('opt-outs', 'remove', 'sms', phone(8));
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('OPT_OUT_NOT_FOUND');
    expect((await cli('opt-outs', 'add', 'fax', phone(8))).code).toBe(2);
    expect(await everything(keyB)).not.toContain(`sms ${phone(8)} api`);
  });

  /** A campaign of tenant A over the API, with these recipients, started; answers its run id. */
  async function startCampaign(
    name: string,
    credentialId: string,
    recipients: readonly string[],
  ): Promise<string> {
    const created = await call('POST', '/v1/campaigns', {
      name,
      channel: 'sms',
      credentialId,
      template: { text: 'Hello' },
      schedule: { kind: 'now' },
    });
    expect(created.status).toBe(201);
    const campaignId = String(created.body['id']);
    const audience = await call('POST', `/v1/campaigns/${campaignId}/audience/inline`, {
      recipients: recipients.map((address) => ({ address })),
    });
    expect(audience.body).toMatchObject({ rowsAccepted: recipients.length });
    expect((await call('POST', `/v1/campaigns/${campaignId}/start`)).status).toBe(200);
    let runId = '';
    await waitUntil('the run exists', async () => {
      const rows = (await ds.query('SELECT id FROM runs WHERE campaign_id = ?', [campaignId])) as {
        id: string;
      }[];
      runId = String(rows[0]?.id ?? '');
      return runId !== '';
    });
    return runId;
  }

  /** Message rows of a run, by recipient: state and reason. */
  async function messagesOf(runId: string): Promise<Map<string, { state: string; reason: string | null }>> {
    const rows = (await ds.query('SELECT recipient, state, reason FROM messages WHERE run_id = ?', [
      runId,
    ])) as {
      recipient: string;
      state: string;
      reason: string | null;
    }[];
    return new Map(rows.map((r) => [r.recipient, { state: r.state, reason: r.reason }]));
  }

  async function settled(
    runId: string,
    total: number,
  ): Promise<Map<string, { state: string; reason: string | null }>> {
    let rows = new Map<string, { state: string; reason: string | null }>();
    await waitUntil(
      `run ${runId} settled`,
      async () => {
        rows = await messagesOf(runId);
        return (
          rows.size === total && [...rows.values()].every((r) => r.state === 'SENT' || r.state === 'SKIPPED')
        );
      },
      { timeoutMs: 120_000, intervalMs: 200 },
    );
    return rows;
  }

  it('skips opted-out recipients of a bulk run, SKIPPED opted-out and never sent', async () => {
    // Opted out: 1 and 2 (sms, API), 3 (sms, import); 4 only on WhatsApp; 8 only for tenant B.
    const recipients = [1, 2, 3, 4, 8, 10, 11].map(phone);
    const runId = await startCampaign('bulk', 'cred_fast', recipients);
    const rows = await settled(runId, recipients.length);
    const skipped = { state: 'SKIPPED', reason: 'opted-out' };
    const sent = { state: 'SENT', reason: null };
    expect(Object.fromEntries(rows)).toEqual({
      [phone(1)]: skipped,
      [phone(2)]: skipped,
      [phone(3)]: skipped,
      [phone(4)]: sent,
      [phone(8)]: sent,
      [phone(10)]: sent,
      [phone(11)]: sent,
    });
    const stats = await simulator.stats('cred_fast');
    expect([stats.distinctMessages, stats.duplicates]).toEqual([4, 0]);
  });

  it('skips an opted-out recipient of a single send (Kafka send request or HTTP), and sends again once removed', async () => {
    const request = (requestId: string, n: number): SendRequestV1 => ({
      requestId,
      kind: SendRequestKind.Single,
      tenantId: 'tenant-a',
      channel: Channel.Sms,
      credentialId: 'cred_fast',
      content: { text: 'Your code is 4711' },
      recipient: { address: spaced(n) },
      requestedAt: new Date().toISOString(),
    });
    const send = async (value: SendRequestV1): Promise<{ state: string; reason: string | null }> => {
      await producer.send({
        topic: names.topic(Topics.sendRequests.name),
        acks: -1,
        messages: [{ key: value.tenantId, value: JSON.stringify(value) }],
      });
      let row: { state: string; reason: string | null } | undefined;
      await waitUntil(`single send ${value.requestId} settled`, async () => {
        const rows = (await ds.query(
          'SELECT state, reason FROM messages WHERE tenant_id = ? AND idempotency_key = ?',
          [value.tenantId, value.requestId],
        )) as { state: string; reason: string | null }[];
        row = rows[0];
        return row !== undefined && (row.state === 'SENT' || row.state === 'SKIPPED');
      });
      return row as { state: string; reason: string | null };
    };
    expect(await send(request('single-1', 2))).toEqual({ state: 'SKIPPED', reason: 'opted-out' });
    // The HTTP route takes the same path: answered SKIPPED at once.
    const http = await call('POST', '/v1/messages', {
      channel: 'sms',
      credentialId: 'cred_fast',
      content: { text: 'Your code is 4711' },
      recipient: { address: spaced(2) },
    });
    expect([http.status, http.body['status']]).toEqual([202, 'SKIPPED']);
    expect((await call('DELETE', optOutPath('sms', phone(2)))).status).toBe(204);
    expect(await send(request('single-2', 2))).toEqual({ state: 'SENT', reason: null });
  });

  it('takes an opt-out imported while a run is running into account within one batch', async () => {
    const recipients = Array.from({ length: 300 }, (_, i) => phone(100 + i));
    const runId = await startCampaign('running', 'cred_slow', recipients);
    await waitUntil(
      'the run is sending',
      async () =>
        [...(await messagesOf(runId)).values()].filter((r) => r.state === 'SENT').length >= 2 * BATCH,
      { timeoutMs: 60_000, intervalMs: 100 },
    );
    // Everyone opts out, spelled as people write numbers.
    const csv = `channel,address\n${recipients.map((_, i) => `sms,${spaced(100 + i)}`).join('\n')}\n`;
    const imported = await upload(csv);
    expect(imported.body).toMatchObject({ rowsAdded: recipients.length, rowsRejected: 0 });
    const atImport = await messagesOf(runId);
    const rows = await settled(runId, recipients.length);
    const sentAfter = [...rows].filter(
      ([r, row]) => row.state === 'SENT' && atImport.get(r)?.state !== 'SENT',
    );
    const skipped = [...rows.values()].filter((row) => row.state === 'SKIPPED');
    // The run was still going: most of it was skipped, and no more than the batch in flight at the import went out.
    expect(atImport.size).toBeLessThan(recipients.length);
    expect(skipped.length).toBeGreaterThan(recipients.length / 2);
    expect(sentAfter.length).toBeLessThanOrEqual(BATCH);
    expect(skipped.every((row) => row.reason === 'opted-out')).toBe(true);
    // Rows created after the import were never PENDING; those created before were skipped at their claim.
    for (const [recipient, row] of rows) {
      if (!atImport.has(recipient)) expect([recipient, row.state]).toEqual([recipient, 'SKIPPED']);
    }
    const stats = await simulator.stats('cred_slow');
    expect([stats.distinctMessages, stats.duplicates]).toEqual([recipients.length - skipped.length, 0]);
    // The run counts them as skipped once the senders' counter deltas are folded.
    await waitUntil('the run counts the skipped', async () => {
      const [run] = (await ds.query('SELECT skipped FROM runs WHERE id = ?', [runId])) as {
        skipped: string;
      }[];
      return Number(run?.skipped) === skipped.length;
    });
  });
});
