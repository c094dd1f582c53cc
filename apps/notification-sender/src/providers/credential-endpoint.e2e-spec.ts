import { randomBytes } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { AllTopics } from '@ums/contracts';
import { createDataSource, ensureTopics, KafkaNames, runPendingMigrations } from '@ums/platform';
import {
  createTenantKey,
  createTestDatabase,
  jsonCall,
  messageStatesOf,
  seedCampaign,
  serviceEnv,
  type ServiceProcess,
  SimulatorClient,
  startServiceProcess,
  testKafka,
  waitUntil,
} from '@ums/testing';
import type { DataSource } from 'typeorm';

jest.setTimeout(300_000);

const RECIPIENTS = 40;

/** One request as the loopback receiver saw it. */
interface RecordedRequest {
  readonly method: string;
  readonly url: string;
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
}

/** A host a tenant might point a credential at: it answers 200 to everything and records every request. */
class LoopbackReceiver {
  readonly requests: RecordedRequest[] = [];

  private constructor(private readonly server: Server) {}

  static async start(): Promise<LoopbackReceiver> {
    const server = createServer();
    const receiver = new LoopbackReceiver(server);
    server.on('request', (request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        receiver.requests.push({
          method: request.method ?? '',
          url: request.url ?? '',
          headers: request.headers,
          body: Buffer.concat(chunks).toString('utf8'),
        });
        response.writeHead(200, { 'content-type': 'application/json' }).end('{"results":[]}');
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return receiver;
  }

  get url(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  /** Requests carrying the secret anywhere: a header, the path or the body. */
  carrying(secret: string): RecordedRequest[] {
    return this.requests.filter((request) => JSON.stringify(request).includes(secret));
  }

  async stop(): Promise<void> {
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

/**
 * A credential's stored secret goes only where the deployment allows its provider to send: the
 * credentials API refuses to move the endpoint without the secret or off the allowlist, and the
 * sender refuses a credential whose endpoint is not (or no longer) on it, before opening the secret.
 * Real processes: the campaign-scheduler (API and due runs), batch-expander, notification-sender and
 * the provider simulator (the allowed host), with a loopback receiver as the host a tenant wants.
 */
describe('a credential whose endpoint is changed never sends its stored secret to the new host', () => {
  let database: Awaited<ReturnType<typeof createTestDatabase>>;
  let ds: DataSource;
  let receiver: LoopbackReceiver;
  let simulator: SimulatorClient;
  let scheduler: ServiceProcess;
  let simulatorAlias: string;
  let key: string;
  const processes: ServiceProcess[] = [];
  const secret = `sim-secret-${randomBytes(12).toString('hex')}`;
  const otherSecret = `sim-secret-${randomBytes(12).toString('hex')}`;

  beforeAll(async () => {
    database = await createTestDatabase('ums_credential_endpoint');
    ds = createDataSource(database.settings);
    await ds.initialize();
    await runPendingMigrations(ds);
    const namespace = `t-${randomBytes(4).toString('hex')}`;
    await ensureTopics(testKafka(), AllTopics, 1, new KafkaNames(namespace));
    receiver = await LoopbackReceiver.start();
    const base = serviceEnv(database.settings.database, namespace);
    const start = async (app: string, extra: Record<string, string> = {}): Promise<ServiceProcess> => {
      const started = await startServiceProcess({ app, env: { ...base, ...extra } });
      processes.push(started);
      return started;
    };
    const simulatorProcess = await start('provider-simulator', { LOG_LEVEL: 'error' });
    simulator = new SimulatorClient(simulatorProcess.url);
    // The deployment allows the simulator's own address, spelled two ways (two endpoints): not the receiver.
    simulatorAlias = simulatorProcess.url.replace('127.0.0.1', 'localhost');
    const endpoints = {
      PROVIDER_SIMULATOR_ENABLED: 'true',
      PROVIDER_ENDPOINTS_SIMULATOR: `${simulatorProcess.url},${simulatorAlias}`,
    };
    [scheduler] = await Promise.all([
      start('campaign-scheduler', { ...endpoints, SCHEDULER_TICK_MS: '200', SWEEPER_TICK_MS: '200' }),
      start('batch-expander', { EXPANDER_POLL_MS: '100' }),
      // Every send reads the credential row again, so a change made in the database is seen at once.
      start('notification-sender', {
        ...endpoints,
        CREDENTIAL_CACHE_TTL_MS: '0',
        RATE_LIMIT_KEY_PREFIX: `t:${namespace}:`,
      }),
    ]);
  });

  afterAll(async () => {
    await Promise.all(processes.map((started) => started.process.stop()));
    await receiver?.stop();
    if (ds?.isInitialized) await ds.destroy();
    await database?.drop();
  });

  async function patch(
    id: string,
    body: Record<string, unknown>,
  ): Promise<{ status: number; fields: string[] }> {
    const answer = await jsonCall(scheduler.url, 'PATCH', `/v1/credentials/${id}`, body, key);
    const error = answer.body['error'] as { fields?: { field: string }[] } | undefined;
    return { status: answer.status, fields: (error?.fields ?? []).map((field) => field.field) };
  }

  /** Starts a run of a new campaign of the credential and waits until its messages are settled. */
  async function runCampaign(credentialId: string, name: string): Promise<Record<string, number>> {
    const campaignId = `cmp_${name}`;
    await seedCampaign(database.settings, {
      campaignId,
      tenantId: 'acme',
      credentialId,
      contacts: RECIPIENTS,
    });
    const inserted = (await ds.query(
      `INSERT INTO runs (campaign_id, fire_at, state) VALUES (?, UTC_TIMESTAMP(3), 'PENDING')`,
      [campaignId],
    )) as { insertId: number };
    const runId = String(inserted.insertId);
    let states: Record<string, number> = {};
    await waitUntil(
      `run of ${name} settled`,
      async () => {
        states = await messageStatesOf(ds, runId);
        const settled = (states['SENT'] ?? 0) + (states['FAILED'] ?? 0);
        return settled === RECIPIENTS;
      },
      { timeoutMs: 120_000, intervalMs: 250 },
    );
    return states;
  }

  it('refuses every way to move it, keeps sending to the allowed host, and refuses a row moved behind its back', async () => {
    key = await createTenantKey(scheduler.url, 'acme');
    const created = await jsonCall(
      scheduler.url,
      'POST',
      '/v1/credentials',
      {
        name: 'simulated provider',
        provider: 'simulator',
        channel: 'sms',
        secret,
        rateCeilingPerSec: 500,
        rateFloorPerSec: 50,
      },
      key,
    );
    expect(created.status).toBe(201);
    const id = created.body['id'] as string;
    // The deployment's only simulator endpoint became the credential's.
    expect(created.body['config']).toEqual({ baseUrl: simulator.url });
    await simulator.putCredential(id, { provider: 'simulator', secret, callbacks: { enabled: false } });

    // Moving the endpoint without the secret (even to an allowed one), or to a host not on the allowlist, is refused.
    expect(await patch(id, { config: { baseUrl: simulatorAlias } })).toEqual({
      status: 400,
      fields: ['secret'],
    });
    expect(await patch(id, { config: { baseUrl: receiver.url } })).toEqual({
      status: 400,
      fields: ['secret', 'config.baseUrl'],
    });
    expect(await patch(id, { config: { baseUrl: receiver.url }, secret: otherSecret })).toEqual({
      status: 400,
      fields: ['config.baseUrl'],
    });
    const [row] = (await ds.query('SELECT config FROM credentials WHERE id = ?', [id])) as {
      config: unknown;
    }[];
    expect(typeof row?.config === 'string' ? JSON.parse(row.config) : row?.config).toEqual({
      baseUrl: simulator.url,
    });

    // A sender running with the credential keeps sending to the allowed host, with the secret it was given.
    const sent = await runCampaign(id, 'allowed');
    expect(sent).toEqual({ SENT: RECIPIENTS });
    const stats = await simulator.stats(id);
    expect(stats.accepted).toBe(RECIPIENTS);
    expect(stats.duplicates).toBe(0);

    // The row moved to the receiver behind the API's back (or the allowlist no longer naming its
    // endpoint): the sender refuses the credential without sending.
    await ds.query(`UPDATE credentials SET config = ? WHERE id = ?`, [
      JSON.stringify({ baseUrl: receiver.url }),
      id,
    ]);
    const refused = await runCampaign(id, 'moved');
    expect(refused).toEqual({ FAILED: RECIPIENTS });
    const codes = (await ds.query(
      `SELECT m.error_code AS code, COUNT(*) AS n FROM messages m JOIN runs r ON r.id = m.run_id
        WHERE r.campaign_id = 'cmp_moved' GROUP BY m.error_code`,
    )) as { code: string; n: number | string }[];
    expect(codes.map((row) => ({ code: row.code, n: Number(row.n) }))).toEqual([
      { code: 'ENDPOINT_NOT_ALLOWED', n: RECIPIENTS },
    ]);

    process.stdout.write(
      `credential endpoint: receiver saw ${receiver.requests.length} requests; simulator accepted ${stats.accepted}\n`,
    );
    expect(receiver.carrying(secret)).toEqual([]);
    expect(receiver.carrying(otherSecret)).toEqual([]);
    expect(receiver.requests).toEqual([]);
  });
});
