import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ALL_SCOPES, AllTopics, Scope, Topics } from '@ums/contracts';
import { createDataSource, ensureTopics, KafkaNames, runPendingMigrations } from '@ums/platform';
import {
  createTestDatabase,
  freePort,
  jsonCall,
  serviceEnv,
  type ServiceProcess,
  startServiceProcess,
  TEST_OPERATOR_KEY,
  testKafka,
  waitUntil,
  workspaceRoot,
} from '@ums/testing';
import type { DataSource } from 'typeorm';

jest.setTimeout(120_000);

interface CliAnswer {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

const BIN = join(workspaceRoot(), 'apps', 'ums-cli', 'bin', 'ums.js');

describe('ums CLI against the campaign-scheduler and webhook-dispatcher (real processes)', () => {
  let db: Awaited<ReturnType<typeof createTestDatabase>>;
  let ds: DataSource;
  let scheduler: ServiceProcess;
  let dispatcher: ServiceProcess;
  let dir: string;
  let names: KafkaNames;
  const tenant = `cli-${randomBytes(3).toString('hex')}`;

  beforeAll(async () => {
    db = await createTestDatabase('ums_cli');
    ds = createDataSource(db.settings);
    await ds.initialize();
    await runPendingMigrations(ds);
    const namespace = `t-${randomBytes(4).toString('hex')}`;
    names = new KafkaNames(namespace);
    await ensureTopics(testKafka(), AllTopics, 1, names);
    const env = serviceEnv(db.settings.database, namespace);
    [scheduler, dispatcher] = await Promise.all([
      startServiceProcess({
        app: 'campaign-scheduler',
        env: { ...env, SCHEDULER_TICK_MS: '200', SWEEPER_TICK_MS: '1000' },
      }),
      startServiceProcess({ app: 'webhook-dispatcher', env }),
    ]);
    dir = mkdtempSync(join(tmpdir(), 'ums-cli-'));
  });

  afterAll(async () => {
    await Promise.all([scheduler?.process.stop(), dispatcher?.process.stop()]);
    await ds?.destroy();
    await db?.drop();
    if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
  });

  /** The key the CLI runs with (UMS_API_KEY): the tenant's, once the first test has made it. */
  let tenantKey = '';

  /**
   * The CLI as an operator runs it: the committed bin, a child process, URLs and the API key from the
   * environment. Whatever it prints never carries the key it was given.
   */
  async function umsWith(apiKey: string | undefined, ...args: string[]): Promise<CliAnswer> {
    const answer = await new Promise<CliAnswer>((resolve, reject) => {
      const child = spawn(process.execPath, [BIN, ...args], {
        // Only these: nothing of the test's own environment (an UMS_TENANT, say) reaches the CLI.
        env: {
          UMS_API_URL: scheduler.url,
          UMS_DISPATCHER_URL: dispatcher.url,
          ...(apiKey === undefined ? {} : { UMS_API_KEY: apiKey }),
        },
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
    if (apiKey !== undefined && apiKey !== '') {
      expect(answer.stdout).not.toContain(apiKey);
      expect(answer.stderr).not.toContain(apiKey);
    }
    return answer;
  }

  function ums(...args: string[]): Promise<CliAnswer> {
    return umsWith(tenantKey, ...args);
  }

  async function umsJson<T>(...args: string[]): Promise<T> {
    const answer = await ums(...args, '--json');
    expect({ args, code: answer.code, stderr: answer.stderr }).toEqual({ args, code: 0, stderr: '' });
    return JSON.parse(answer.stdout) as T;
  }

  async function runState(runId: string): Promise<string> {
    const rows: { state: string }[] = await ds.query('SELECT state FROM runs WHERE id = ?', [runId]);
    return String(rows[0]?.state);
  }

  let campaignId = '';
  let runId = '';

  it("refuses calls without a key, then makes the tenant's key with the operator key (shown once)", async () => {
    const none = await umsWith(undefined, 'campaigns', 'list');
    expect(none.code).toBe(1);
    expect(none.stderr).toMatch(/^error: AUTH_MISSING: .*\(HTTP 401\)\ngive an API key with UMS_API_KEY/);

    const noTenant = await umsWith(
      TEST_OPERATOR_KEY,
      'keys',
      'create',
      '--name',
      'x',
      '--scopes',
      'audit:read',
    );
    expect(noTenant.code).toBe(1);
    expect(noTenant.stderr).toMatch(/^error: TENANT_REQUIRED: .*\(HTTP 400\)/);

    const created = await umsWith(
      TEST_OPERATOR_KEY,
      'keys',
      'create',
      '--tenant',
      tenant,
      '--name',
      'cli e2e',
      '--scopes',
      ALL_SCOPES.join(','),
    );
    expect({ code: created.code, stderr: created.stderr }).toEqual({
      code: 0,
      stderr: expect.stringMatching(/^warning: the key is shown this once and cannot be shown again/),
    });
    expect(created.stdout).toMatch(new RegExp(`tenant:\\s+${tenant}\n`));
    expect(created.stdout).toMatch(/created:\s+\S+ \S+ by operator\n/);
    tenantKey = /^key:\s+(umsk_\S+)$/m.exec(created.stdout)?.[1] ?? '';
    expect(tenantKey).toMatch(/^umsk_[0-9A-Z]{26}_[A-Za-z0-9_-]{43}$/);
    const keyId = /^id:\s+(key_\S+)$/m.exec(created.stdout)?.[1];
    const rows: { secret_hash: string }[] = await ds.query('SELECT * FROM api_keys WHERE id = ?', [keyId]);
    expect(rows).toHaveLength(1);
    expect(JSON.stringify(rows)).not.toContain(tenantKey.slice(-43));

    // The tenant's key lists its tenant's keys, never a token; the operator sees them with --tenant.
    const listed = await umsJson<{ items: { id: string; tenantId: string }[] }>('keys', 'list');
    expect(listed.items.map((k) => [k.id, k.tenantId])).toEqual([[keyId, tenant]]);
    const byOperator = await umsWith(TEST_OPERATOR_KEY, 'keys', 'list', '--tenant', tenant);
    expect(byOperator.code).toBe(0);
    expect(byOperator.stdout).toMatch(/^ID\s+TENANT\s+NAME\s+SCOPES\s+CREATED\s+EXPIRES\s+REVOKED/);
    expect(byOperator.stdout).toMatch(new RegExp(`${String(keyId)}\\s+${tenant}\\s+cli e2e\\s`));
    expect(byOperator.stdout).not.toContain(tenantKey);
  });

  it('creates a credential, then a campaign from a CSV with its import summary, and starts it', async () => {
    const credential = await umsJson<{ id: string; channel: string }>(
      'credentials',
      'create',
      '--name',
      'cli simulator',
      '--provider',
      'simulator',
      '--channel',
      'sms',
      '--rate-ceiling',
      '50',
      '--config',
      'baseUrl=http://127.0.0.1:9',
    );
    expect(credential.id).toMatch(/^cred_/);

    const csv = join(dir, 'audience.csv');
    writeFileSync(
      csv,
      [
        'phone,first_name',
        '+4915100000001,Ada',
        '+4915100000002,Bob',
        '+4915100000003,Cy',
        '12,Too short',
        '+4915100000001,Ada again',
        '+4915100000004,Dee',
        '',
      ].join('\n'),
    );
    const created = await ums(
      'campaigns',
      'create',
      '--name',
      'CLI campaign',
      '--channel',
      'sms',
      '--credential',
      credential.id,
      '--text',
      'Hi {{first_name}}',
      '--csv',
      csv,
      '--start',
    );
    expect(created.code).toBe(0);
    // Not a terminal: the upload progress comes as lines on stderr, the result on stdout.
    expect(created.stderr).toMatch(/uploaded audience\.csv: 4 recipients accepted/);
    expect(created.stdout).toMatch(/accepted:\s+4/);
    expect(created.stdout).toMatch(/rejected:\s+1/);
    expect(created.stdout).toMatch(/duplicates:\s+1/);
    expect(created.stdout).toMatch(/state:\s+ACTIVE/);
    campaignId = /id:\s+(cmp_[0-9A-Z]+)/.exec(created.stdout)?.[1] ?? '';
    expect(campaignId).toMatch(/^cmp_/);
    const contacts: { n: string | number }[] = await ds.query(
      'SELECT COUNT(*) AS n FROM contacts WHERE campaign_id = ?',
      [campaignId],
    );
    expect(Number(contacts[0]?.n)).toBe(4);

    const badCsv = join(dir, 'bad.csv');
    writeFileSync(badCsv, 'name,city\nAda,Berlin\n');
    const badHeader = await ums('campaigns', 'upload', campaignId, '--csv', badCsv);
    expect(badHeader.code).toBe(1);
    expect(badHeader.stderr).toMatch(/error: AUDIENCE_HEADER_INVALID: .*\(HTTP 400\)/);

    const refused = await ums(
      'campaigns',
      'create',
      '--name',
      'bad',
      '--channel',
      'fax',
      '--credential',
      credential.id,
      '--text',
      'x',
    );
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/^error: VALIDATION_FAILED: .*\(HTTP 400\)\n {2}channel: /);
  });

  it('lists and shows campaigns as tables and as JSON', async () => {
    const table = await ums('campaigns', 'list');
    expect(table.code).toBe(0);
    const lines = table.stdout.split('\n');
    expect(lines[0]).toMatch(/^ID\s+TENANT\s+NAME\s+CHANNEL\s+STATE/);
    expect(lines.find((l) => l.startsWith(campaignId))).toMatch(/CLI campaign\s+sms\s+ACTIVE/);

    const page = await umsJson<{ items: { id: string; state: string }[] }>('campaigns', 'list');
    expect(page.items).toEqual([expect.objectContaining({ id: campaignId, state: 'ACTIVE' })]);

    const detail = await waitUntil(
      'the run scheduled',
      async () => {
        const view = await umsJson<{ audienceSize: number; runs: { id: string; state: string }[] }>(
          'campaigns',
          'show',
          campaignId,
        );
        return view.runs[0]?.state === 'SCHEDULED' ? view : undefined;
      },
      { timeoutMs: 20_000, intervalMs: 200 },
    );
    expect(detail.audienceSize).toBe(4);
    runId = detail.runs[0]?.id ?? '';

    const shown = await ums('campaigns', 'show', campaignId);
    expect(shown.code).toBe(0);
    expect(shown.stdout).toMatch(/audience:\s+4/);
    expect(shown.stdout).toMatch(/RUN\s+STATE\s+FIRE AT\s+TOTAL\s+PENDING/);
    expect(shown.stdout).toMatch(new RegExp(`\\n\\s*${runId}\\s+SCHEDULED`));
  });

  it('pauses, resumes and stops the run; refusals and bad ids exit 1; --watch ends on a finished run', async () => {
    // Watched while it happens: each state change a line of its own, once; the watch ends with the run.
    const watching = ums('campaigns', 'show', campaignId, '--watch', '--interval', '100');
    const paused = await ums('runs', 'pause', campaignId, runId);
    expect(paused.code).toBe(0);
    expect(paused.stdout).toContain(`run ${runId} is PAUSED`);
    expect(await runState(runId)).toBe('PAUSED');

    const again = await ums('runs', 'pause', campaignId, runId);
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(/^error: RUN_TRANSITION_REFUSED: .*\(HTTP 409\)/);

    const resumed = await umsJson<{ run: { state: string } }>('runs', 'resume', campaignId, runId);
    expect(resumed.run.state).toBe('RUNNING');
    expect(await runState(runId)).toBe('RUNNING');

    const stopped = await ums('runs', 'stop', campaignId, runId);
    expect(stopped.code).toBe(0);
    expect(stopped.stdout).toContain(`run ${runId} is STOPPED`);
    expect(await runState(runId)).toBe('STOPPED');

    const live = await watching;
    expect(live.code).toBe(0);
    const transitions = (stderr: string): string[] =>
      stderr
        .split('\n')
        .map((l) => new RegExp(`^run ${runId} ([a-z]+) +([A-Z]+) -> ([A-Z]+)  at `).exec(l))
        .filter((m): m is RegExpExecArray => m !== null)
        .map((m) => `${m[1]} ${m[2]}->${m[3]}`);
    expect(transitions(live.stderr)).toEqual([
      'scheduled PENDING->SCHEDULED',
      'paused SCHEDULED->PAUSED',
      'resumed PAUSED->RUNNING',
      'stopped RUNNING->STOPPED',
    ]);
    expect(live.stderr).toMatch(new RegExp(`run ${runId} STOPPED\\s+\\[`));
    // A watch of a finished run prints its history and ends at once.
    const watched = await ums('campaigns', 'show', campaignId, '--watch', '--interval', '200');
    expect(watched.code).toBe(0);
    expect(transitions(watched.stderr)).toEqual(transitions(live.stderr));
    expect(watched.stderr).toMatch(new RegExp(`run ${runId} STOPPED\\s+\\[`));

    const missingCampaign = await ums('campaigns', 'show', 'cmp_DOESNOTEXIST');
    expect(missingCampaign.code).toBe(1);
    expect(missingCampaign.stderr).toMatch(/^error: CAMPAIGN_NOT_FOUND: .*\(HTTP 404\)/);
    const missingRun = await ums('runs', 'pause', campaignId, '999999999', '--json');
    expect(missingRun.code).toBe(1);
    expect(JSON.parse(missingRun.stderr)).toMatchObject({ error: { code: 'RUN_NOT_FOUND', status: 404 } });
    expect(missingRun.stdout).toBe('');
  });

  it('lists subscribers and resurrects a dead one; replays its dead letters since a time', async () => {
    const created = await jsonCall(
      dispatcher.url,
      'POST',
      '/v1/subscribers',
      { url: 'https://93.184.215.14/ums', eventTypes: ['message.status'] },
      tenantKey,
    );
    expect(created.status).toBe(201);
    const id = String(created.body['id']);

    const listed = await ums('subscribers', 'list');
    expect(listed.code).toBe(0);
    expect(listed.stdout).toMatch(/^ID\s+TENANT\s+STATE\s+URL/);
    expect(listed.stdout).toMatch(
      new RegExp(`${id}\\s+${tenant}\\s+ALIVE\\s+https://93\\.184\\.215\\.14/ums`),
    );

    const notDead = await ums('subscribers', 'resurrect', id);
    expect(notDead.code).toBe(1);
    expect(notDead.stderr).toMatch(/^error: SUBSCRIBER_NOT_DEAD: /);

    await ds.query(`UPDATE subscribers SET state = 'DEAD', dead_since = UTC_TIMESTAMP(3) WHERE id = ?`, [id]);
    const dead = await umsJson<{ items: { id: string; state: string }[] }>('subscribers', 'list');
    expect(dead.items).toEqual([expect.objectContaining({ id, state: 'DEAD' })]);

    const resurrected = await ums('subscribers', 'resurrect', id);
    expect(resurrected.code).toBe(0);
    expect(resurrected.stdout).toMatch(new RegExp(`subscriber ${id} is (REPLAYING|ALIVE)`));
    await waitUntil(
      'the subscriber alive again',
      async () => (await umsJson<{ state: string }>('subscribers', 'show', id)).state === 'ALIVE',
      { timeoutMs: 20_000, intervalMs: 200 },
    );

    expect(await umsJson('dlq', 'replay', id, '--since', '2020-01-01T00:00:00Z')).toEqual({ replayed: 0 });
    expect(await umsJson('dlq', 'list', id)).toEqual({ items: [], nextBefore: null });
    const unknown = await ums('subscribers', 'resurrect', 'sub_DOESNOTEXIST');
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toMatch(/^error: SUBSCRIBER_NOT_FOUND: /);
  });

  it('lists, shows and replays dead letters of the Kafka flow', async () => {
    const producer = testKafka().producer();
    await producer.connect();
    try {
      await producer.send({
        topic: names.topic(Topics.sendRequests.name),
        acks: -1,
        messages: [{ key: tenant, value: 'not a send request' }],
      });
    } finally {
      await producer.disconnect();
    }
    const page = await waitUntil(
      'the dead letter stored',
      async () => {
        const listed = await umsJson<{ items: { id: string; errorCode: string }[] }>(
          'dead-letters',
          'list',
          '--error-code',
          'INVALID_JSON',
        );
        return listed.items.length === 1 ? listed : undefined;
      },
      { timeoutMs: 30_000, intervalMs: 300 },
    );
    const id = String(page.items[0]?.id);
    const table = await ums('dead-letters', 'list', '--open');
    expect(table.code).toBe(0);
    expect(table.stdout).toMatch(/^ID\s+FAILED\s+TOPIC\s+PARTITION:OFFSET\s+GROUP\s+CODE\s+REASON\s+REPLAYS/);
    expect(table.stdout).toMatch(
      new RegExp(`${id}\\s.*${names.topic(Topics.sendRequests.name)}.*INVALID_JSON`),
    );
    const shown = await ums('dead-letters', 'show', id);
    expect(shown.code).toBe(0);
    expect(shown.stdout).toMatch(
      new RegExp(`replays to:\\s+${Topics.sendRequests.name.replace(/\./g, '\\.')}\n`),
    );
    expect(shown.stdout).toContain('value (utf8):\nnot a send request\n');

    const neither = await ums('dead-letters', 'replay');
    expect(neither.code).toBe(2);
    expect(neither.stderr).toContain(
      'give DEAD_LETTER_ID(s), or at least one of --topic, --error-code, --group',
    );
    const unknown = await ums('dead-letters', 'replay', '99999999');
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toMatch(/^error: DEAD_LETTER_NOT_FOUND: /);

    const replayed = await ums('dead-letters', 'replay', '--error-code', 'INVALID_JSON');
    expect(replayed.code).toBe(0);
    expect(replayed.stdout).toBe('1 dead letter(s) published again\n');
    // Still no send request: it fails again, as a new dead letter that names the one replayed.
    const again = await waitUntil(
      'the replayed message dead-lettered again',
      async () =>
        (
          await umsJson<{ items: { id: string; headers: Record<string, string> }[] }>(
            'dead-letters',
            'list',
            '--open',
            '--error-code',
            'INVALID_JSON',
          )
        ).items[0],
      { timeoutMs: 30_000, intervalMs: 300 },
    );
    expect(again.headers).toEqual({ 'ums-dead-letter-replay': id });
    expect((await umsJson<{ replays: number }>('dead-letters', 'show', id)).replays).toBe(1);
  });

  it('lists the audit trail: the tenant its own calls, the operator any tenant with --tenant', async () => {
    type Trail = {
      items: { action: string; principalKind: string; tenantId: string; service: string; status: number }[];
    };
    const credentials = await umsJson<Trail>('audit', 'list', '--action', 'POST /v1/credentials');
    expect(credentials.items.map((e) => [e.principalKind, e.tenantId, e.status])).toEqual([
      ['api-key', tenant, 201],
    ]);
    const subscribers = await umsJson<Trail>('audit', 'list', '--action', 'POST /v1/subscribers');
    expect(subscribers.items.map((e) => [e.service, e.status])).toEqual([['webhook-dispatcher', 201]]);
    const table = await umsWith(TEST_OPERATOR_KEY, 'audit', 'list', '--tenant', tenant, '--limit', '500');
    expect(table.code).toBe(0);
    expect(table.stdout).toMatch(
      /^ID\s+TIME\s+PRINCIPAL\s+TENANT\s+SERVICE\s+ACTION\s+TARGET\s+STATUS\s+RESULT/,
    );
    expect(table.stdout).toMatch(
      new RegExp(`\\soperator\\s+${tenant}\\s+campaign-scheduler\\s+POST /v1/api-keys\\s`),
    );
    expect(table.stdout).toMatch(/\sPOST \/v1\/campaigns\/:campaignId\/runs\/:runId\/:action\s/);
  });

  it('refuses a key without the scope (403) and a revoked key (401) with their reason, exit 1', async () => {
    const made = await umsJson<{ id: string; key: string; scopes: string[] }>(
      'keys',
      'create',
      '--name',
      'reader',
      '--scopes',
      Scope.CampaignsRead,
      '--expires-at',
      new Date(Date.now() + 3_600_000).toISOString(),
    );
    expect(made.scopes).toEqual([Scope.CampaignsRead]);
    const reader = made.key;
    expect((await umsWith(reader, 'campaigns', 'list')).code).toBe(0);
    const flagged = await umsWith(undefined, 'campaigns', 'list', '--api-key', reader, '--json');
    expect(flagged.code).toBe(0);
    expect(`${flagged.stdout}${flagged.stderr}`).not.toContain(reader);

    const noScope = await umsWith(reader, 'credentials', 'list');
    expect(noScope.code).toBe(1);
    expect(noScope.stderr).toMatch(/^error: AUTH_SCOPE_MISSING: .*credentials:read.*\(HTTP 403\)/);
    const otherTenant = await umsWith(reader, 'campaigns', 'list', '--tenant', 'someone-else');
    expect(otherTenant.code).toBe(1);
    expect(otherTenant.stderr).toMatch(/^error: AUTH_TENANT_HEADER_FORBIDDEN: .*\(HTTP 403\)\n--tenant/);

    const revoked = await ums('keys', 'revoke', made.id);
    expect(revoked.code).toBe(0);
    expect(revoked.stdout).toMatch(new RegExp(`^key ${made.id} \\(reader\\) revoked at \\S+ \\S+\n$`));
    const refused = await umsWith(reader, 'campaigns', 'list');
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/^error: AUTH_KEY_REVOKED: .*\(HTTP 401\)/);
    const refusedJson = await umsWith(reader, 'campaigns', 'list', '--json');
    expect(refusedJson.code).toBe(1);
    expect(JSON.parse(refusedJson.stderr)).toMatchObject({
      error: { code: 'AUTH_KEY_REVOKED', status: 401 },
    });
    const shown = await umsJson<{ revokedAt: string | null }>('keys', 'show', made.id);
    expect(shown.revokedAt).not.toBeNull();

    const malformed = await umsWith('not-a-key', 'campaigns', 'list');
    expect(malformed.code).toBe(1);
    expect(malformed.stderr).toMatch(/^error: AUTH_MALFORMED: .*\(HTTP 401\)/);
    // A key that cannot travel in a header is refused before anything is sent, without repeating it.
    const unsendable = await umsWith('umsk_has a space', 'campaigns', 'list');
    expect(unsendable.code).toBe(2);
    expect(unsendable.stderr).toMatch(/^error: the API key of UMS_API_KEY must be visible ASCII/);
    expect(unsendable.stderr).not.toContain('has a space');
  });

  it('exits 2 on bad usage and 3 when a service cannot be reached', async () => {
    const usage = await ums('campaigns', 'frobnicate');
    expect(usage.code).toBe(2);
    expect(usage.stderr).toMatch(/^error: unknown command "campaigns frobnicate"/);
    const missing = await ums('runs', 'pause', campaignId);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('usage: ums runs pause CAMPAIGN_ID RUN_ID');

    const closed = await freePort();
    const down = await ums('campaigns', 'list', '--api', `http://127.0.0.1:${closed}`);
    expect(down.code).toBe(3);
    expect(down.stderr).toContain(
      `cannot connect to the campaign API at http://127.0.0.1:${closed} (ECONNREFUSED)`,
    );
    expect(down.stderr).not.toMatch(/\n\s+at /);
  });
});
