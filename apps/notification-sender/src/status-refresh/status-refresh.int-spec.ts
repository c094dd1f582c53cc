import { randomBytes } from 'node:crypto';
import { Writable } from 'node:stream';
import { AllTopics, Channel, FailureReason, MessageStatus, Provider, Topics } from '@ums/contracts';
import {
  createDataSource,
  ensureTopics,
  HealthRegistry,
  KafkaMetrics,
  KafkaNames,
  KafkaProducer,
  loadConfig,
  MetricsRegistry,
  runPendingMigrations,
  SecretBox,
  ServiceInfo,
} from '@ums/platform';
import {
  createTestDatabase,
  messageStatesOf,
  runRowOf,
  seedCampaign,
  type ServiceProcess,
  SimulatorClient,
  startServiceProcess,
  testKafka,
  waitUntil,
} from '@ums/testing';
import { PinoLogger } from 'nestjs-pino';
import type { DataSource } from 'typeorm';
import { CredentialConcurrency } from '../providers/credential-concurrency';
import { CredentialLoader } from '../providers/credential-loader.service';
import { CredentialsRepository } from '../providers/credentials.repository';
import type {
  LoadedCredential,
  OutgoingMessage,
  ProviderAdapter,
  ProviderStatusApi,
} from '../providers/provider-adapter';
import type { ProviderHttpClient } from '../providers/provider-http.client';
import { SimulatorAdapter } from '../providers/simulator.adapter';
import { SimulatorStatusApi } from '../providers/simulator.status-api';
import { StatusApis } from '../providers/status-apis';
import { testHttpClient, TWILIO_SID } from '../providers/test/provider-fixtures';
import { TwilioAdapter } from '../providers/twilio.adapter';
import { TwilioStatusApi } from '../providers/twilio.status-api';
import { foldCounterDeltas } from '../sending/run-counters';
import { SendingConfig } from '../sending/sending.config';
import { StatusEventsPublisher } from '../sending/status-events.publisher';
import { StatusUpdatesRepository } from '../status/status-updates.repository';
import { NotReceivedCredits } from './not-received-credits';
import { StatusRefreshConfig } from './status-refresh.config';
import { StatusRefreshLookups } from './status-refresh.lookups';
import { StatusRefreshMetrics } from './status-refresh.metrics';
import { StatusRefreshRepository } from './status-refresh.repository';
import { StatusRefreshService } from './status-refresh.service';
import { StatusRefreshSettler } from './status-refresh.settler';
import { creditLedgerRepository } from '../sending/test/claims-repository';

jest.setTimeout(180_000);

const TENANT = 'tenant-sr';
// Status callbacks go nowhere (nothing listens there): the simulator's records still move on.
const NOWHERE = 'http://127.0.0.1:9/callbacks';
const CALLBACKS = { enabled: true, deliveredRate: 1, readRate: 0, failedRate: 0, delayMs: 20 };

/**
 * Status refresh against the provider simulator process and MariaDB/Kafka: rows the simulator accepted
 * (sends that timed out with timeoutDelivers, so UNKNOWN here; and SENT ones) are settled by what it
 * recorded, UNKNOWN rows it never saw become FAILED NOT_RECEIVED, nothing is sent again.
 */
describe('status refresh (provider simulator process, MariaDB, Kafka)', () => {
  let sim: ServiceProcess;
  let admin: SimulatorClient;
  let db: Awaited<ReturnType<typeof createTestDatabase>>;
  let ds: DataSource;
  let http: ProviderHttpClient;
  let concurrency: CredentialConcurrency;
  let loader: CredentialLoader;
  let producer: KafkaProducer;
  let service: StatusRefreshService;
  let metrics: StatusRefreshMetrics;
  let statusTopic: string;
  const box = new SecretBox([{ id: 'k1', key: randomBytes(32) }]);

  beforeAll(async () => {
    sim = await startServiceProcess({
      app: 'provider-simulator',
      env: { SIMULATOR_TIMEOUT_HOLD_MS: '3000', LOG_LEVEL: 'error' },
    });
    admin = new SimulatorClient(sim.url);
    db = await createTestDatabase('status_refresh');
    ds = createDataSource({ ...db.settings, poolSize: 8 });
    await ds.initialize();
    await runPendingMigrations(ds);
    const namespace = `t-${randomBytes(4).toString('hex')}`;
    const names = new KafkaNames(namespace);
    statusTopic = names.topic(Topics.messageStatus.name);
    await ensureTopics(
      testKafka(),
      AllTopics.filter((topic) => topic.name === Topics.messageStatus.name),
      1,
      names,
    );
    producer = new KafkaProducer(
      testKafka(),
      new KafkaMetrics(new MetricsRegistry('sr-kafka')),
      new HealthRegistry(),
      names,
      new ServiceInfo('status-refresh-test'),
    );
    await producer.onModuleInit();
    const client = testHttpClient({ PROVIDER_HTTP_TIMEOUT_MS: '400' });
    http = client.http;
    concurrency = new CredentialConcurrency(client.config);
    const registry = new MetricsRegistry('sr');
    const quiet = new Writable({ write: (_chunk, _encoding, done) => done() });
    const logger = new PinoLogger({ pinoHttp: [{ level: 'warn' }, quiet] });
    loader = new CredentialLoader(
      new CredentialsRepository(ds),
      box,
      client.config,
      client.metrics,
      logger,
      client.endpoints,
    );
    const apis = new StatusApis([
      new SimulatorStatusApi(http),
      new TwilioStatusApi(http, concurrency, { matchWindowMs: 60_000 }),
    ]);
    const config = loadConfig(StatusRefreshConfig, {
      STATUS_REFRESH_UNKNOWN_AFTER_MS: '600000',
      STATUS_REFRESH_SENT_AFTER_MS: '3600000',
      STATUS_REFRESH_BATCH: '4',
    });
    const repository = new StatusRefreshRepository(ds);
    metrics = new StatusRefreshMetrics(registry);
    const settler = new StatusRefreshSettler(
      new StatusRefreshLookups(config, loader, apis, metrics),
      new StatusUpdatesRepository(ds),
      new StatusEventsPublisher(producer),
      repository,
      metrics,
      ds,
      new NotReceivedCredits(creditLedgerRepository(registry)),
    );
    service = new StatusRefreshService(
      config,
      repository,
      settler,
      metrics,
      ds,
      logger,
      loadConfig(SendingConfig, { SENDER_CLAIM_TIMEOUT_MS: '60000' }),
    );
  });

  afterAll(async () => {
    await http?.onApplicationShutdown();
    await producer?.onApplicationShutdown();
    if (ds?.isInitialized) await ds.destroy();
    await db?.drop();
    await sim?.process.stop();
  });

  async function insertCredential(
    id: string,
    provider: Provider,
    config: unknown,
    secret: string,
  ): Promise<void> {
    await ds.query(
      `INSERT INTO credentials (id, tenant_id, name, provider, channel, config, secret_ciphertext,
         rate_ceiling_per_sec, rate_floor_per_sec, created_at, updated_at)
       VALUES (?, ?, ?, ?, 'sms', ?, ?, 100, 10, UTC_TIMESTAMP(3), UTC_TIMESTAMP(3))`,
      [id, TENANT, id, provider, JSON.stringify(config), box.seal(secret)],
    );
  }

  /** A RUNNING run of 12 messages of `credentialId`, all PENDING. */
  async function seedRun(campaignId: string, credentialId: string): Promise<{ runId: string; rows: Row[] }> {
    await seedCampaign(db.settings, { campaignId, tenantId: TENANT, credentialId, contacts: 12 });
    const result = (await ds.query(
      `INSERT INTO runs (campaign_id, fire_at, state, total, pending) VALUES (?, UTC_TIMESTAMP(3), 'RUNNING', 12, 12)`,
      [campaignId],
    )) as { insertId: number };
    const runId = String(result.insertId);
    await ds.query(
      `INSERT INTO messages (run_id, campaign_id, tenant_id, contact_id, channel, credential_id, recipient, lane, state)
       SELECT ?, campaign_id, ?, id, 'sms', ?, address, 'bulk', 'PENDING' FROM contacts WHERE campaign_id = ?`,
      [runId, TENANT, credentialId, campaignId],
    );
    const rows = (await ds.query('SELECT id, recipient FROM messages WHERE run_id = ? ORDER BY id', [
      runId,
    ])) as { id: string; recipient: string }[];
    return { runId, rows: rows.map((r) => ({ id: String(r.id), recipient: r.recipient })) };
  }

  interface Row {
    readonly id: string;
    readonly recipient: string;
  }

  const outgoing = (row: Row): OutgoingMessage => ({
    messageId: row.id,
    channel: Channel.Sms,
    recipient: row.recipient,
    content: { text: `Hello ${row.id}` },
  });

  /** Claims rows (SENDING, claimed now) and moves the run's counters with them. */
  async function claim(runId: string, rows: readonly Row[]): Promise<void> {
    await ds.query(
      `UPDATE messages SET state = 'SENDING', claim_token = 'tok', claimed_at = UTC_TIMESTAMP(3), attempts = 1 WHERE id IN (?)`,
      [rows.map((r) => r.id)],
    );
    await ds.query('UPDATE runs SET pending = pending - ?, sending = sending + ? WHERE id = ?', [
      rows.length,
      rows.length,
      runId,
    ]);
  }

  /** Records the claim's end as the sender would: `state` for every row (and the provider ids of SENT rows). */
  async function record(
    runId: string,
    rows: readonly Row[],
    state: 'UNKNOWN' | 'SENT',
    ids: string[] = [],
  ): Promise<void> {
    await ds.query(`UPDATE messages SET state = ?, claim_token = '' WHERE id IN (?)`, [
      state,
      rows.map((r) => r.id),
    ]);
    const column = state === 'SENT' ? 'sent' : 'unknown';
    await ds.query(`UPDATE runs SET sending = sending - ?, ${column} = ${column} + ? WHERE id = ?`, [
      rows.length,
      rows.length,
      runId,
    ]);
    if (ids.length > 0) {
      await ds.query(
        `INSERT INTO message_provider_ids (message_id, provider_message_id) VALUES ${ids.map(() => '(?, ?)').join(', ')}`,
        rows.flatMap((r, i) => [r.id, ids[i]]),
      );
    }
  }

  /**
   * The four kinds of rows, sent through the adapter to the simulator: 0-3 sent but the answer timed
   * out (UNKNOWN, the simulator has them), 4-6 timed out unsent, 7-8 claimed and never sent (UNKNOWN,
   * the simulator never saw them), 9-11 sent and answered (SENT with the provider's id).
   */
  async function sendTheFourKinds<P extends Provider>(
    simCredentialId: string,
    adapter: ProviderAdapter<P>,
    credential: LoadedCredential<P>,
    runId: string,
    rows: readonly Row[],
  ): Promise<void> {
    const send = async (slice: readonly Row[], settings: Record<string, unknown>): Promise<string[]> => {
      await admin.patchCredential(simCredentialId, settings);
      await claim(runId, slice);
      const outcomes = await adapter.send(credential, slice.map(outgoing));
      return outcomes.flatMap((o) =>
        o.kind === 'accepted' && o.providerMessageId !== null ? [o.providerMessageId] : [],
      );
    };
    expect(await send(rows.slice(0, 4), { timeoutRate: 1, timeoutDelivers: true })).toEqual([]);
    await record(runId, rows.slice(0, 4), 'UNKNOWN');
    expect(await send(rows.slice(4, 7), { timeoutRate: 1, timeoutDelivers: false })).toEqual([]);
    await record(runId, rows.slice(4, 7), 'UNKNOWN');
    await claim(runId, rows.slice(7, 9));
    await record(runId, rows.slice(7, 9), 'UNKNOWN');
    const ids = await send(rows.slice(9), { timeoutRate: 0 });
    expect(ids).toHaveLength(3);
    await record(runId, rows.slice(9), 'SENT', ids);
  }

  async function providerIdsOf(runId: string): Promise<Map<string, string>> {
    const named = (await ds.query(
      `SELECT p.message_id, p.provider_message_id FROM message_provider_ids p
         JOIN messages m ON m.id = p.message_id WHERE m.run_id = ?`,
      [runId],
    )) as { message_id: string; provider_message_id: string }[];
    return new Map(named.map((r) => [String(r.message_id), r.provider_message_id]));
  }

  /** Status events on the topic so far (every change is published once). */
  async function statusEvents(): Promise<number> {
    const kafkaAdmin = testKafka().admin();
    await kafkaAdmin.connect();
    try {
      const offsets = await kafkaAdmin.fetchTopicOffsets(statusTopic);
      return offsets.reduce((sum, p) => sum + Number(p.high) - Number(p.low), 0);
    } finally {
      await kafkaAdmin.disconnect();
    }
  }

  async function sendCounts(rows: readonly Row[]): Promise<number[]> {
    return Promise.all(
      rows.map(async (row) => {
        const response = await fetch(`${sim.url}/_sim/sends/${row.id}`);
        return ((await response.json()) as { accepted: number }).accepted;
      }),
    );
  }

  /** The rows' states and reasons, and the run's counters (deltas folded) next to the rows' own counts. */
  async function outcome(
    runId: string,
  ): Promise<{ rows: Record<string, string>; counters: Record<string, number> }> {
    await ds.transaction('READ COMMITTED', (manager) => foldCounterDeltas(manager, 1_000_000));
    const rows = (await ds.query('SELECT id, state, reason FROM messages WHERE run_id = ? ORDER BY id', [
      runId,
    ])) as { id: string; state: string; reason: string | null }[];
    const run = await runRowOf(ds, runId);
    const states = await messageStatesOf(ds, runId);
    const count = (state: MessageStatus): number => states[state] ?? 0;
    expect({
      pending: run.pending,
      sending: run.sending,
      sent: run.sent,
      delivered: run.delivered,
      failed: run.failed,
      unknown: run.unknown,
    }).toEqual({
      pending: count(MessageStatus.Pending),
      sending: count(MessageStatus.Sending),
      sent: count(MessageStatus.Sent),
      delivered: count(MessageStatus.Delivered),
      failed: count(MessageStatus.Failed),
      unknown: count(MessageStatus.Unknown),
    });
    return {
      rows: Object.fromEntries(
        rows.map((r) => [String(r.id), r.reason === null ? r.state : `${r.state}:${r.reason}`]),
      ),
      counters: states,
    };
  }

  const expected = (rows: readonly Row[]): Record<string, string> =>
    Object.fromEntries(
      rows.map((row, i) => [
        row.id,
        i < 4 || i >= 9 ? MessageStatus.Delivered : `${MessageStatus.Failed}:${FailureReason.NotReceived}`,
      ]),
    );

  it('native API, periodic walk: settles what the simulator recorded, the rest NOT_RECEIVED, sends nothing', async () => {
    await admin.putCredential('native', {
      provider: 'simulator',
      secret: 'sim-key',
      callbackUrl: NOWHERE,
      callbacks: CALLBACKS,
    });
    await insertCredential('native', Provider.Simulator, { baseUrl: sim.url }, 'sim-key');
    const loaded = await loader.load('native');
    if (!loaded.ok || loaded.credential.provider !== Provider.Simulator)
      throw new Error('credential not loaded');
    const credential = loaded.credential as LoadedCredential<Provider.Simulator>;
    const { runId, rows } = await seedRun('cmp-native', 'native');
    await sendTheFourKinds('native', new SimulatorAdapter(http, concurrency), credential, runId, rows);
    // The tenant pays 2 credits a message: every row holds its charge (24 in all) until refunded.
    await ds.query(
      `INSERT INTO credit_accounts (tenant_id, channel, balance, price) VALUES (?, 'sms', 100, 2)`,
      [TENANT],
    );
    await ds.query('UPDATE messages SET charge = 2, segments = 1 WHERE run_id = ?', [runId]);
    await ds.query('UPDATE runs SET charged = 24 WHERE id = ?', [runId]);
    // Past STATUS_REFRESH_UNKNOWN_AFTER_MS and STATUS_REFRESH_SENT_AFTER_MS: the periodic walk's candidates.
    await ds.query(
      'UPDATE messages SET claimed_at = DATE_SUB(claimed_at, INTERVAL 2 HOUR) WHERE run_id = ?',
      [runId],
    );
    const before = await sendCounts(rows);
    expect(before).toEqual([1, 1, 1, 1, 0, 0, 0, 0, 0, 1, 1, 1]);
    await waitForDelivered(new SimulatorStatusApi(http), credential, rows, new Map());

    const pass = await service.refresh();
    expect(pass?.counts).toEqual({
      sent: 0,
      delivered: 7,
      read: 0,
      failed: 0,
      notReceived: 5,
      unresolved: 0,
    });
    const after = await outcome(runId);
    expect(after.rows).toEqual(expected(rows));
    expect(after.counters).toEqual({ DELIVERED: 7, FAILED: 5 });
    expect(await statusEvents()).toBe(12);
    expect(await sendCounts(rows)).toEqual(before);
    const known = await ds.query(
      'SELECT COUNT(*) AS n FROM message_provider_ids p JOIN messages m ON m.id = p.message_id WHERE m.run_id = ?',
      [runId],
    );
    expect(Number((known as { n: string }[])[0]?.n)).toBe(7);
    // The five never received gave their credits back, in the same transaction; the others keep theirs.
    const [account] = (await ds.query(`SELECT balance FROM credit_accounts WHERE tenant_id = ?`, [
      TENANT,
    ])) as {
      balance: string;
    }[];
    expect(Number(account?.balance)).toBe(110);
    const charges = (await ds.query('SELECT charge FROM messages WHERE run_id = ? ORDER BY id', [runId])) as {
      charge: string;
    }[];
    expect(charges.map((c) => Number(c.charge))).toEqual([2, 2, 2, 2, 0, 0, 0, 0, 0, 2, 2, 2]);
    const [run] = (await ds.query('SELECT charged FROM runs WHERE id = ?', [runId])) as { charged: string }[];
    expect(Number(run?.charged)).toBe(14);

    // A second pass finds nothing left to ask about and changes nothing.
    const again = await service.refresh();
    expect(again?.counts).toEqual({
      sent: 0,
      delivered: 0,
      read: 0,
      failed: 0,
      notReceived: 0,
      unresolved: 0,
    });
    expect((await outcome(runId)).rows).toEqual(expected(rows));
  });

  it('Twilio, operator request: SIDs fetched, UNKNOWN rows matched in the list resource, nothing resent', async () => {
    await admin.putCredential('tw', {
      provider: 'twilio',
      account: { accountSid: TWILIO_SID, from: '+15005550006' },
      secret: 'tw-token',
      callbacks: CALLBACKS,
    });
    const config = {
      baseUrl: sim.url,
      accountSid: TWILIO_SID,
      from: '+15005550006',
      statusCallbackUrl: NOWHERE,
    };
    await insertCredential('tw', Provider.Twilio, config, 'tw-token');
    const loaded = await loader.load('tw');
    if (!loaded.ok || loaded.credential.provider !== Provider.Twilio)
      throw new Error('credential not loaded');
    const credential = loaded.credential as LoadedCredential<Provider.Twilio>;
    const { runId, rows } = await seedRun('cmp-twilio', 'tw');
    await sendTheFourKinds('tw', new TwilioAdapter(http, concurrency), credential, runId, rows);
    const before = await sendCounts(rows);
    expect(before).toEqual([1, 1, 1, 1, 0, 0, 0, 0, 0, 1, 1, 1]);
    await waitForDelivered(
      new TwilioStatusApi(http, concurrency, { matchWindowMs: 60_000 }),
      credential,
      rows,
      await providerIdsOf(runId),
    );

    // Claimed just now: only an operator's request (no age threshold) asks about them.
    expect((await service.refresh())?.counts).toMatchObject({ delivered: 0, notReceived: 0 });
    await ds.query(
      `INSERT INTO status_refresh_requests (run_id, tenant_id, requested_by) VALUES (?, ?, 'test')`,
      [runId, TENANT],
    );
    const pass = await service.refresh();
    expect(pass?.counts).toEqual({
      sent: 0,
      delivered: 7,
      read: 0,
      failed: 0,
      notReceived: 5,
      unresolved: 0,
    });
    const after = await outcome(runId);
    expect(after.rows).toEqual(expected(rows));
    expect(await statusEvents()).toBe(24);
    expect(await sendCounts(rows)).toEqual(before);
    const [request] = (await ds.query(
      `SELECT settled_delivered, settled_not_received, unresolved, finished_at > '1970-01-02' AS finished
         FROM status_refresh_requests WHERE run_id = ?`,
      [runId],
    )) as Record<string, string | number>[];
    expect({
      delivered: Number(request?.['settled_delivered']),
      notReceived: Number(request?.['settled_not_received']),
      unresolved: Number(request?.['unresolved']),
      finished: Number(request?.['finished']),
    }).toEqual({ delivered: 7, notReceived: 5, unresolved: 0, finished: 1 });
  });

  /**
   * The simulator moves a record on when its status falls due (delayMs after the send): waits until
   * it reports the accepted sends (rows 0-3 and 9-11) delivered.
   */
  async function waitForDelivered<P extends Provider>(
    api: ProviderStatusApi<P>,
    credential: LoadedCredential<P>,
    rows: readonly Row[],
    providerIds: ReadonlyMap<string, string>,
  ): Promise<void> {
    const accepted = [...rows.slice(0, 4), ...rows.slice(9)];
    await waitUntil('the simulator reports the accepted sends delivered', async () => {
      const lookups = await api.lookup(
        credential,
        accepted.map((row) => ({
          messageId: row.id,
          recipient: row.recipient,
          providerMessageId: providerIds.get(row.id) ?? null,
          claimedAt: new Date(Date.now() - 30_000),
        })),
      );
      return lookups.every((l) => l.kind === 'accepted' && l.status === 'delivered');
    });
  }
});
