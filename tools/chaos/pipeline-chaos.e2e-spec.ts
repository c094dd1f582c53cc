import { type MessageStatusV1, Scope } from '@ums/contracts';
import { bearer, LoopbackSubscriber, waitUntil } from '@ums/testing';
import {
  CHAOS_PRICE,
  chaosTopUp,
  type CreditFigures,
  creditFiguresOf,
  refreshRunStatuses,
  setUpCredits,
} from './chaos-credits.fixture';
import { describeFault, FaultInjector } from './chaos-faults.fixture';
import {
  type ChaosService,
  ChaosStack,
  createTenantApiKey,
  DeadLetterRecorder,
  type KeyedApi,
  keyedApi,
  registerInternalSubscriber,
  type RunCounters,
  type SimulatorStatsWithCallbacks,
  StatusTopicRecorder,
} from './chaos-stack.fixture';

jest.setTimeout(1_200_000);

/** CHAOS_RECIPIENTS runs it smaller for a quick check (the faults stay the same). */
const RECIPIENTS = positiveEnv('CHAOS_RECIPIENTS', 40_000);
/**
 * The credential's messages/s: the run must outlast the faults below (four to seven minutes of them on
 * a 2-core host, one after the other) and still stay short. CHAOS_RATE overrides it; by default it scales with the recipients.
 */
const RATE = positiveEnv('CHAOS_RATE', Math.max(20, Math.round((200 * RECIPIENTS) / 40_000)));
// WhatsApp: the channel with read receipts, so the provider reports sent, delivered and read.
const CHANNEL = 'whatsapp';
const TENANT = 'chaos';
const SENDERS = ['a', 'b', 'c'] as const;
// SENDER_MAX_CLAIMED_MESSAGES of every replica: what one SIGKILLed sender can leave UNKNOWN at most.
const MAX_CLAIMED = 1_000;
// Recipients the simulator always refuses (CSV numbers are +4915100 followed by six digits).
const REFUSED = ['+4915100000007', '+4915100012345'].filter((phone) => Number(phone.slice(-6)) < RECIPIENTS);
const CALLBACK_SECRET = 'chaos-callback-secret';
// The subscriber takes batches, so batched relays are what the faults hit.
const SUBSCRIBER_BATCH = 20;
/** The service that the proxy cuts off MySQL (CHAOS_CUT_OFF, else one picked at random). */
const CUT_OFF = (process.env['CHAOS_CUT_OFF'] ??
  pick([
    'scheduler',
    'expander',
    'ingest',
    'dispatcher',
    ...SENDERS.map((s) => `sender-${s}`),
  ])) as ChaosService;
const MYSQL_CUT_MS = 20_000;
const MARIADB_DOWN_MS = 6_000;
const REDIS_DOWN_MS = 5_000;
const KAFKA_NODE_DOWN_MS = 15_000;

type Fault = { kind: 'kill'; service: ChaosService } | { kind: 'kafka' | 'mariadb' | 'redis' | 'cut' };

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));
function pick<T>(items: readonly T[]): T {
  return items[Math.floor(Math.random() * items.length)] as T;
}
function shuffle<T>(items: T[]): T[] {
  for (let i = items.length - 1; i > 0; i--) {
    const j = Math.floor(Math.random() * (i + 1));
    [items[i], items[j]] = [items[j] as T, items[i] as T];
  }
  return items;
}
function positiveEnv(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value <= 0) throw new Error(`${name} must be a positive integer`);
  return value;
}

/** Like waitUntil, but answers whether it happened, so the figures are printed before any assertion fails. */
async function happens(
  description: string,
  probe: () => Promise<boolean>,
  timeoutMs: number,
): Promise<boolean> {
  try {
    await waitUntil(description, probe, { timeoutMs, intervalMs: 500 });
    return true;
  } catch {
    return false;
  }
}

const settledOf = (c: RunCounters): number => c.sent + c.delivered + c.read + c.failed + c.unknown;

interface Campaign {
  /** The tenant's key: campaigns and credentials. */
  readonly apiKey: string;
  readonly credentialId: string;
  readonly campaignId: string;
  readonly runId: string;
}

/** Subscriber, credential, campaign with a CSV audience, started through the APIs. */
async function startCampaign(stack: ChaosStack, subscriber: LoopbackSubscriber): Promise<Campaign> {
  const scheduler = stack.url('scheduler');
  const apiKey = await createTenantApiKey({
    schedulerUrl: scheduler,
    operatorKey: stack.operatorKey,
    tenantId: TENANT,
    scopes: [Scope.CredentialsWrite, Scope.CampaignsRead, Scope.CampaignsWrite, Scope.SubscribersWrite],
  });
  const callApi = keyedApi(apiKey);
  // A loopback subscriber is internal, which only the operator may register.
  const created = await registerInternalSubscriber(
    stack.url('dispatcher'),
    { operatorKey: stack.operatorKey, tenantId: TENANT },
    {
      url: subscriber.url(),
      eventTypes: ['message.status'],
      internal: true,
      maxEventsPerRequest: SUBSCRIBER_BATCH,
    },
  );
  subscriber.secret = created.secret;
  const credential = await createCredential(stack, callApi);
  await setUpCredits(stack, { tenantId: TENANT, channel: CHANNEL, recipients: RECIPIENTS });
  const campaign = await callApi<{ id: string }>('POST', `${scheduler}/v1/campaigns`, {
    name: 'Chaos campaign',
    channel: CHANNEL,
    credentialId: credential.id,
    template: { text: 'Hi {{first_name}}, code {{code}}' },
    schedule: { kind: 'now' },
  });
  await importAudience(`${scheduler}/v1/campaigns/${campaign.id}/audience/csv`, apiKey);
  await callApi('POST', `${scheduler}/v1/campaigns/${campaign.id}/start`, {});
  const runId = await waitUntil(
    'the run',
    async () =>
      (await callApi<{ runs: { id: string }[] }>('GET', `${scheduler}/v1/campaigns/${campaign.id}`)).runs[0]
        ?.id,
    { timeoutMs: 30_000, intervalMs: 200 },
  );
  return { apiKey, credentialId: credential.id, campaignId: campaign.id, runId };
}

/** The simulator credential of the campaign, and its behaviour at the simulator (callbacks to ingest). */
async function createCredential(stack: ChaosStack, callApi: KeyedApi): Promise<{ id: string }> {
  const scheduler = stack.url('scheduler');
  const credential = await callApi<{ id: string }>('POST', `${scheduler}/v1/credentials`, {
    name: 'chaos simulator',
    provider: 'simulator',
    channel: CHANNEL,
    config: { baseUrl: stack.url('simulator') },
    callbackSecret: CALLBACK_SECRET,
    rateCeilingPerSec: RATE,
    rateFloorPerSec: Math.max(1, Math.floor(RATE / 4)),
  });
  await stack.simulator.putCredential(credential.id, {
    provider: 'simulator',
    latency: { minMs: 2, p50Ms: 8, p99Ms: 40 },
    error5xxRate: 0.005,
    permanentFailures: REFUSED,
    callbackUrl: `${stack.url('ingest')}/v1/callbacks/simulator/${credential.id}`,
    callbackSecret: CALLBACK_SECRET,
    callbacks: {
      enabled: true,
      deliveredRate: 0.95,
      readRate: 0.6,
      failedRate: 0.005,
      duplicateRate: 0.05,
      outOfOrderRate: 0.05,
      delayMs: 300,
    },
  });
  return credential;
}

async function importAudience(url: string, apiKey: string): Promise<void> {
  const csv = ['phone,first_name,code'];
  for (let i = 0; i < RECIPIENTS; i++) csv.push(`+4915100${String(i).padStart(6, '0')},R${i},${i % 9973}`);
  const form = new FormData();
  form.append('file', new Blob([`${csv.join('\n')}\n`], { type: 'text/csv' }), 'audience.csv');
  const imported = await fetch(url, { method: 'POST', headers: bearer(apiKey), body: form });
  const summary = (await imported.json()) as Record<string, unknown>;
  expect({ status: imported.status, accepted: summary['rowsAccepted'] }).toEqual({
    status: 201,
    accepted: RECIPIENTS,
  });
}

/**
 * Every fault once, in a random order, each at a random point of the run's progress (3-80 % of the
 * recipients settled; at most 15 s of waiting for it, so a stalled run is hit too): a SIGKILL of
 * every service but the simulator (one sender replica twice), the Kafka node leading the campaign's
 * partition killed and restarted, MariaDB and Redis restarted, one service cut off MySQL for 20 s.
 */
async function runFaults(stack: ChaosStack, faults: FaultInjector, runId: string): Promise<number> {
  const plan = shuffle<Fault>([
    ...(['scheduler', 'expander', 'ingest', 'dispatcher'] as const).map((service): Fault => ({
      kind: 'kill',
      service,
    })),
    ...[...SENDERS, pick(SENDERS)].map((s): Fault => ({ kind: 'kill', service: `sender-${s}` })),
    { kind: 'kafka' },
    { kind: 'mariadb' },
    { kind: 'redis' },
    { kind: 'cut' },
  ]);
  const marks = plan.map(() => 0.03 + Math.random() * 0.77).sort((a, b) => a - b);
  const started = Date.now();
  for (const [index, fault] of plan.entries()) {
    await sleep(500 + Math.random() * 1_500);
    const mark = (marks[index] ?? 0) * RECIPIENTS;
    await happens(
      'the next chaos moment',
      async () => settledOf(await stack.counters(runId)) >= mark,
      15_000,
    );
    if (fault.kind === 'kill') await faults.killService(fault.service);
    else if (fault.kind === 'kafka') await faults.killPartitionLeader(KAFKA_NODE_DOWN_MS);
    else if (fault.kind === 'mariadb') await faults.restartMariadb(MARIADB_DOWN_MS);
    else if (fault.kind === 'redis') await faults.restartRedis(REDIS_DOWN_MS);
    else await faults.cutMysql(CUT_OFF, MYSQL_CUT_MS);
  }
  return (Date.now() - started) / 1000;
}

interface Settled {
  /** UNKNOWN rows when the run completed, before the status refresh settled them. */
  readonly unknownBeforeRefresh: number;
  readonly completed: boolean;
  readonly quiet: boolean;
  readonly batchesCounted: boolean;
}

/** Waits for the run to complete, the callbacks to be applied and every status event to be relayed. */
async function awaitSettled(
  stack: ChaosStack,
  campaign: Campaign,
  recorder: StatusTopicRecorder,
  subscriber: LoopbackSubscriber,
): Promise<Settled> {
  const completed = await happens(
    'the run completed with nothing pending or sending',
    async () => {
      const c = await stack.counters(campaign.runId);
      return c.state === 'COMPLETED' && c.total === RECIPIENTS && c.pending === 0 && c.sending === 0;
    },
    300_000,
  );
  // UNKNOWN rows (claims the sender kills left unrecorded) asked about at the provider, as an operator does.
  const refresh = await refreshRunStatuses(stack, { ...campaign });
  let previous = '';
  const quiet = await happens(
    'callbacks applied and every status event relayed',
    async () => {
      const stats = await stack.simulatorStats(campaign.credentialId);
      const states = JSON.stringify(await stack.statesOf(campaign.runId));
      const stable = states === previous;
      previous = states;
      return (
        stable &&
        stats.callbacks.pending === 0 &&
        [...recorder.events.keys()].every((id) => subscriber.hasAccepted(id))
      );
    },
    180_000,
  );
  // The expander's backpressure counts each published batch once by its seq; a committed batch whose
  // messages a backlog copy settled may still be on its way to a sender when the run completes.
  const batchesCounted = await happens(
    'every published batch counted as finished',
    async () => {
      const c = await stack.counters(campaign.runId);
      return c.batchesFinished >= c.batchesPublished;
    },
    60_000,
  );
  return { completed, quiet, batchesCounted, unknownBeforeRefresh: refresh.unknownBefore };
}

/** The states of the rows of the recipients the simulator refuses. */
async function refusedStates(stack: ChaosStack, runId: string): Promise<string[]> {
  if (REFUSED.length === 0) return [];
  const rows = (await stack.ds.query('SELECT state FROM messages WHERE run_id = ? AND recipient IN (?)', [
    runId,
    REFUSED,
  ])) as { state: string }[];
  return rows.map((r) => r.state);
}

/** Every event of every batch request the subscriber accepted, with the id it came under. */
function relayedEvents(
  subscriber: LoopbackSubscriber,
): { webhookId: string; type: string; data?: MessageStatusV1 }[] {
  return subscriber.received
    .flatMap((r) => {
      const body = JSON.parse(r.body) as {
        type: string;
        data: ({ id: string; type: string; data: MessageStatusV1 } | undefined)[];
      };
      return body.type === 'webhook.batch'
        ? body.data.map((item) => ({ webhookId: item?.id ?? '', type: item?.type ?? '', data: item?.data }))
        : [{ webhookId: r.webhookId, type: `not a batch: ${body.type}` }];
    })
    .filter((r) => subscriber.hasAccepted(r.webhookId));
}

interface Figures {
  readonly counters: RunCounters;
  readonly states: Record<string, number>;
  readonly stats: SimulatorStatsWithCallbacks;
  readonly rows: { id: string; state: string }[];
  readonly n: (state: string) => number;
  readonly unknown: number;
  readonly acceptedByProvider: number;
  readonly published: number;
  /** Status events on the topic that the subscriber never accepted. */
  readonly lost: string[];
  readonly notPublished: string[];
  readonly unannounced: { id: string; state: string }[];
  readonly senderKills: number;
  /** What the sender kills may leave UNKNOWN at most. */
  readonly bound: number;
  readonly foreign: unknown[];
  readonly credits: CreditFigures;
}

async function collectFigures(parts: {
  stack: ChaosStack;
  campaign: Campaign;
  statuses: StatusTopicRecorder;
  relay: LoopbackSubscriber;
  faults: FaultInjector;
}): Promise<Figures> {
  const { stack, campaign, statuses, relay, faults } = parts;
  const counters = await stack.counters(campaign.runId);
  const states = await stack.statesOf(campaign.runId);
  const stats = await stack.simulatorStats(campaign.credentialId);
  const rows = await stack.rowsOf(campaign.runId);
  const n = (state: string): number => states[state] ?? 0;
  const senderKills = SENDERS.reduce((sum, s) => sum + (faults.kills[`sender-${s}`] ?? 0), 0);
  const published = [...statuses.events.values()];
  return {
    counters,
    states,
    stats,
    rows,
    n,
    unknown: n('UNKNOWN'),
    acceptedByProvider: n('SENT') + n('DELIVERED') + n('READ'),
    published: published.length,
    lost: published.filter((e) => !relay.hasAccepted(e.eventId)).map((e) => e.eventId),
    notPublished: relay.accepted.filter((id) => !statuses.events.has(id)),
    unannounced: rows.filter((r) => statuses.statuses.get(r.id)?.has(r.state) !== true),
    senderKills,
    bound: senderKills * MAX_CLAIMED,
    foreign: relayedEvents(relay).filter(
      (r) =>
        r.type !== 'message.status' || r.data?.runId !== campaign.runId || r.data.eventId !== r.webhookId,
    ),
    credits: await creditFiguresOf(stack, { tenantId: TENANT, channel: CHANNEL, runId: campaign.runId }),
  };
}

function printFigures(
  f: Figures,
  run: {
    faults: FaultInjector;
    letters: DeadLetterRecorder;
    relay: LoopbackSubscriber;
    chaosSeconds: number;
    crashes: string[];
    settled: Settled;
    wall: number;
  },
): void {
  const { faults, letters, relay, crashes, settled } = run;
  process.stdout.write(
    `pipeline chaos v2 faults (${faults.records.length}, over ${run.chaosSeconds.toFixed(0)} s):\n  ` +
      `${faults.records.map(describeFault).join('\n  ')}\n` +
      `pipeline chaos v2 figures: duplicates=${f.stats.duplicates} lost=${f.lost.length} ` +
      `deadLetteredValid=${letters.letters.length} ${JSON.stringify(letters.summary())} ` +
      `UNKNOWN=${settled.unknownBeforeRefresh} before the status refresh, ${f.unknown} after ` +
      `(bound ${f.senderKills} sender kills x ${MAX_CLAIMED} = ${f.bound}) ` +
      `credits=${JSON.stringify(f.credits)} ` +
      `state=${f.counters.state} completed=${settled.completed} quiet=${settled.quiet} crashes=${crashes.length} ` +
      `unannounced=${f.unannounced.length} | states=${JSON.stringify(f.states)} run=${JSON.stringify(f.counters)} | ` +
      `status events published=${f.published} relayed=${relay.acceptedCount} ` +
      `(requests ${relay.received.length}, invalid signatures ${relay.invalidSignatures()}, not on topic ${f.notPublished.length}) | ` +
      `simulator accepted=${f.stats.accepted} distinct=${f.stats.distinctMessages} refused=${f.stats.rejectedPermanent} ` +
      `5xx=${f.stats.errors5xx} callbacks=${JSON.stringify(f.stats.callbacks)} | wall=${run.wall.toFixed(0)} s\n`,
  );
  if (crashes.length > 0) process.stdout.write(`crashes:\n  ${crashes.join('\n  ')}\n`);
  if (f.lost.length > 0)
    process.stdout.write(`lost event ids (first 20): ${f.lost.slice(0, 20).join(' ')}\n`);
  if (letters.letters.length > 0)
    process.stdout.write(
      `dead letters (first 5): ${JSON.stringify(letters.letters.slice(0, 5).map(({ value: _value, ...rest }) => rest))}\n`,
    );
  if (f.unannounced.length > 0)
    process.stdout.write(`unannounced rows (first 20): ${JSON.stringify(f.unannounced.slice(0, 20))}\n`);
}

/**
 * A 40,000-recipient WhatsApp campaign (sent, delivered and read callbacks, relayed
 * to a subscriber) on a three-node Kafka cluster and a MariaDB and a Redis of the test's own, while
 * every service is SIGKILLed, the Kafka node leading the campaign's partition is killed and
 * restarted, MariaDB and Redis are restarted and one service is cut off MySQL for 20 s. Nothing may
 * be sent twice, lost on the way to the subscriber, or dead-lettered, and the run must complete.
 */
describe('pipeline chaos v2: a campaign end to end through process, broker, database and Redis faults', () => {
  const wallStarted = Date.now();
  let stack: ChaosStack | undefined;
  let recorder: StatusTopicRecorder | undefined;
  let deadLetters: DeadLetterRecorder | undefined;
  let subscriber: LoopbackSubscriber | undefined;

  beforeAll(async () => {
    stack = await ChaosStack.start({
      label: 'pipeline_chaos',
      senderReplicas: SENDERS,
      senderMaxClaimed: MAX_CLAIMED,
      cutOff: CUT_OFF,
    });
    subscriber = await LoopbackSubscriber.start();
    recorder = await StatusTopicRecorder.start(stack.kafka, stack.names);
    deadLetters = await DeadLetterRecorder.start(stack.kafka, stack.names);
  }, 480_000);

  afterAll(async () => {
    await recorder?.stop().catch(() => undefined);
    await deadLetters?.stop().catch(() => undefined);
    await subscriber?.stop();
    await stack?.stop();
  }, 180_000);

  it('sends every recipient at most once, settles every message and relays every status event', async () => {
    const running = stack as ChaosStack;
    const relay = subscriber as LoopbackSubscriber;
    const statuses = recorder as StatusTopicRecorder;
    const letters = deadLetters as DeadLetterRecorder;
    process.stdout.write(
      `chaos v2: ${RECIPIENTS} recipients at ${RATE}/s, ${SENDERS.length} senders, ${CUT_OFF} behind the MySQL proxy, ` +
        `Kafka ${running.cluster.brokers}, set up in ${((Date.now() - wallStarted) / 1000).toFixed(0)} s\n`,
    );
    const campaign = await startCampaign(running, relay);
    const faults = new FaultInjector({
      stack: running,
      campaignId: campaign.campaignId,
      recipients: RECIPIENTS,
      settled: async () => settledOf(await running.counters(campaign.runId)),
      relayed: () => relay.acceptedCount,
    });
    const chaosSeconds = await runFaults(running, faults, campaign.runId);
    const settled = await awaitSettled(running, campaign, statuses, relay);
    await faults.restartCrashed();
    const crashes = [...faults.crashes, ...running.crashed()];

    const f = await collectFigures({ stack: running, campaign, statuses, relay, faults });
    printFigures(f, {
      faults,
      letters,
      relay,
      chaosSeconds,
      crashes,
      settled,
      wall: (Date.now() - wallStarted) / 1000,
    });
    const { counters, stats, rows, unknown, bound, n } = f;

    // The acceptance figures first: nothing sent twice, lost or dead-lettered, UNKNOWN within
    // what the sender kills allow (a kill leaves at most what that sender held claimed), run COMPLETED.
    expect(stats.duplicates).toBe(0);
    expect(f.lost).toEqual([]);
    // Every record in this test is valid: any dead letter is a valid event dead-lettered.
    expect(letters.summary()).toEqual({});
    expect(settled.unknownBeforeRefresh).toBeLessThanOrEqual(bound);
    // The status refresh settled every UNKNOWN row (the simulator knows each), resending nothing.
    expect(unknown).toBe(0);
    expect(counters.state).toBe('COMPLETED');
    // Credits: exactly the messages the provider accepted are paid for, each once; nothing else is.
    const paid = CHAOS_PRICE * stats.distinctMessages;
    expect(f.credits.overcharged).toBe(0);
    expect(f.credits.chargedRows).toBe(stats.distinctMessages);
    expect(f.credits.charged).toBe(paid);
    expect(-((f.credits.ledger['RESERVE'] ?? 0) + (f.credits.ledger['REFUND'] ?? 0))).toBe(paid);
    expect(f.credits.ledger['TOP_UP']).toBe(chaosTopUp(RECIPIENTS));
    expect(f.credits.balance).toBe(f.credits.ledgerSum);
    // Every fault happened: each service killed, each sender replica at least once, the four slow faults once.
    expect(Object.keys(faults.kills).sort()).toEqual(
      ['dispatcher', 'expander', 'ingest', 'scheduler', ...SENDERS.map((s) => `sender-${s}`)].sort(),
    );
    expect(faults.records).toHaveLength(12);
    // No service died by itself.
    expect(crashes).toEqual([]);
    // Every recipient SENT, DELIVERED, READ, FAILED or UNKNOWN, none pending or in flight.
    expect(settled.completed).toBe(true);
    expect(rows).toHaveLength(RECIPIENTS);
    expect(f.acceptedByProvider + n('FAILED') + unknown).toBe(RECIPIENTS);
    expect(counters).toMatchObject({
      state: 'COMPLETED',
      total: RECIPIENTS,
      pending: 0,
      sending: 0,
      sent: n('SENT'),
      delivered: n('DELIVERED'),
      read: n('READ'),
      failed: n('FAILED'),
      unknown,
    });
    expect(settled.batchesCounted).toBe(true);
    // Every row the provider accepted was sent once.
    expect(stats.duplicateIds).toEqual([]);
    expect(stats.distinctMessages).toBeGreaterThanOrEqual(f.acceptedByProvider);
    expect(stats.distinctMessages).toBeLessThanOrEqual(RECIPIENTS - REFUSED.length);
    // Refused by the provider: FAILED, or UNKNOWN when the claim expired before the refusal was recorded;
    // never anything the provider accepted.
    const refused = await refusedStates(running, campaign.runId);
    expect(refused).toHaveLength(REFUSED.length);
    for (const state of refused) expect(['FAILED', 'UNKNOWN']).toContain(state);
    // The provider never gave up on a callback (it retries as long as a real one would).
    expect(stats.callbacks).toMatchObject({ failed: 0, dropped: 0, pending: 0 });
    // Every row's state was announced on the status topic, and every event there reached the subscriber.
    expect(settled.quiet).toBe(true);
    expect(f.unannounced).toEqual([]);
    expect(f.notPublished).toEqual([]);
    expect(f.foreign).toEqual([]);
    expect(relay.invalidSignatures()).toBe(0);
  });
});
