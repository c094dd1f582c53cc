import { type MessageStatusV1, Scope } from '@ums/contracts';
import { bearer, LoopbackSubscriber, waitUntil } from '@ums/testing';
import {
  type ChaosService,
  ChaosStack,
  createTenantApiKey,
  keyedApi,
  registerInternalSubscriber,
  type RunCounters,
  StatusTopicRecorder,
} from './chaos-stack.fixture';

jest.setTimeout(900_000);

const RECIPIENTS = 20_000;
// WhatsApp: the channel with read receipts, so the provider reports sent, delivered and read.
const CHANNEL = 'whatsapp';
const TENANT = 'chaos';
const SENDERS = ['a', 'b', 'c'] as const;
// SENDER_MAX_CLAIMED_MESSAGES of every replica: what one SIGKILLed sender can leave UNKNOWN at most.
const MAX_CLAIMED = 1_000;
// The credential's messages/s: slow enough that the run outlasts the chaos below.
const RATE = 160;
// Recipients the simulator always refuses (CSV numbers are +4915100 followed by six digits).
const REFUSED = ['+4915100000007', '+4915100012345'];
const CALLBACK_SECRET = 'chaos-callback-secret';
// The subscriber takes batches, so batched relays are what the kills hit (one-event requests under a
// dispatcher SIGKILL: deliveries.e2e-spec.ts).
const SUBSCRIBER_BATCH = 20;

type Action = Exclude<ChaosService, 'scheduler' | 'simulator'> | 'broker';

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));
const pick = <T>(items: readonly T[]): T => items[Math.floor(Math.random() * items.length)] as T;
function shuffle<T>(items: T[]): T[] {
  for (let i = items.length - 1; i > 0; i--) {
    const j = Math.floor(Math.random() * (i + 1));
    [items[i], items[j]] = [items[j] as T, items[i] as T];
  }
  return items;
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

/**
 * Issue 7, part 4: a 20,000-recipient campaign through every stage while processes are SIGKILLed
 * and restarted at random moments (the expander, each sender replica, the ingest, the dispatcher)
 * and the Kafka broker is stopped and started once. Nothing may be sent twice, left pending or lost
 * on the way to the subscriber.
 */
describe('pipeline chaos: a campaign end to end while every stage is killed (dedicated Kafka, processes)', () => {
  const wallStarted = Date.now();
  let stack: ChaosStack;
  let recorder: StatusTopicRecorder;
  let subscriber: LoopbackSubscriber;

  beforeAll(async () => {
    stack = await ChaosStack.start({
      label: 'pipeline_chaos',
      senderReplicas: SENDERS,
      senderMaxClaimed: MAX_CLAIMED,
    });
    subscriber = await LoopbackSubscriber.start();
    recorder = await StatusTopicRecorder.start(stack.kafka, stack.names);
  });

  afterAll(async () => {
    await recorder?.stop();
    await subscriber?.stop();
    await stack?.stop();
  });

  it('sends every recipient at most once, settles every message and relays every status event', async () => {
    const scheduler = stack.url('scheduler');
    const simulatorUrl = stack.url('simulator');
    // Every call to the scheduler and the dispatcher carries a key of the tenant, made with the operator key.
    const apiKey = await createTenantApiKey({
      schedulerUrl: scheduler,
      operatorKey: stack.operatorKey,
      tenantId: TENANT,
      scopes: [Scope.CredentialsWrite, Scope.CampaignsRead, Scope.CampaignsWrite, Scope.SubscribersWrite],
    });
    const callApi = keyedApi(apiKey);

    // The subscriber, registered through the dispatcher's API before anything is sent; a loopback one is
    // internal, which only the operator may register.
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

    // Credential, campaign, CSV audience and start, through the campaign API.
    const credential = await callApi<{ id: string }>('POST', `${scheduler}/v1/credentials`, {
      name: 'chaos simulator',
      provider: 'simulator',
      channel: CHANNEL,
      config: { baseUrl: simulatorUrl },
      callbackSecret: CALLBACK_SECRET,
      rateCeilingPerSec: RATE,
      rateFloorPerSec: Math.floor(RATE / 4),
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
    const campaign = await callApi<{ id: string }>('POST', `${scheduler}/v1/campaigns`, {
      name: 'Chaos campaign',
      channel: CHANNEL,
      credentialId: credential.id,
      template: { text: 'Hi {{first_name}}, code {{code}}' },
      schedule: { kind: 'now' },
    });
    const csv = ['phone,first_name,code'];
    for (let i = 0; i < RECIPIENTS; i++) csv.push(`+4915100${String(i).padStart(6, '0')},R${i},${i % 9973}`);
    const form = new FormData();
    form.append('file', new Blob([`${csv.join('\n')}\n`], { type: 'text/csv' }), 'audience.csv');
    const imported = await fetch(`${scheduler}/v1/campaigns/${campaign.id}/audience/csv`, {
      method: 'POST',
      headers: bearer(apiKey),
      body: form,
    });
    const summary = (await imported.json()) as Record<string, unknown>;
    expect({ status: imported.status, accepted: summary['rowsAccepted'] }).toEqual({
      status: 201,
      accepted: RECIPIENTS,
    });
    await callApi('POST', `${scheduler}/v1/campaigns/${campaign.id}/start`, {});
    const runId = await waitUntil(
      'the run',
      async () =>
        (await callApi<{ runs: { id: string }[] }>('GET', `${scheduler}/v1/campaigns/${campaign.id}`)).runs[0]
          ?.id,
      { timeoutMs: 30_000, intervalMs: 200 },
    );
    const sendingStarted = Date.now();
    const settledOf = (c: RunCounters): number => c.sent + c.delivered + c.read + c.failed + c.unknown;

    // Chaos: every stage at least once, in a random order, each at a random point of the run's progress
    // (5-80 % of the recipients settled; at most 30 s of waiting for it, so a stalled run is hit too).
    const plan = shuffle<Action>([
      'expander',
      'expander',
      ...SENDERS.map((s): Action => `sender-${s}`),
      `sender-${pick(SENDERS)}`,
      'ingest',
      'ingest',
      'dispatcher',
      'dispatcher',
      'broker',
    ]);
    const marks = plan.map(() => 0.05 + Math.random() * 0.75).sort((a, b) => a - b);
    const kills: Record<string, number> = {};
    const timeline: string[] = [];
    const crashes: string[] = [];
    let brokerRestarts = 0;
    for (const [index, action] of plan.entries()) {
      await sleep(500 + Math.random() * 1_500);
      const mark = (marks[index] ?? 0) * RECIPIENTS;
      await happens(
        'the next chaos moment',
        async () => settledOf(await stack.counters(runId)) >= mark,
        30_000,
      );
      const before = await stack.counters(runId);
      const at = `${action}@${Math.round((100 * settledOf(before)) / RECIPIENTS)}%`;
      if (action === 'broker') {
        await stack.broker.stop();
        await sleep(2_000 + Math.random() * 3_000);
        await stack.broker.restart();
        brokerRestarts++;
      } else {
        const service = stack.service(action);
        await service.process.kill();
        kills[action] = (kills[action] ?? 0) + 1;
        await sleep(Math.random() * 1_500);
        await service.restart();
      }
      timeline.push(at);
      // A service that died by itself is a finding: noted, and started again as an orchestrator would.
      for (const [name, service] of stack.services) {
        const reason = service.process.exitedUnexpectedly();
        if (reason !== undefined) {
          crashes.push(`${name}: ${reason}`);
          await service.restart();
        }
      }
    }
    const chaosSeconds = (Date.now() - sendingStarted) / 1000;

    // The end: the run completed with nothing pending or in flight ...
    const completed = await happens(
      'the run completed with nothing pending or sending',
      async () => {
        const c = await stack.counters(runId);
        return c.state === 'COMPLETED' && c.total === RECIPIENTS && c.pending === 0 && c.sending === 0;
      },
      300_000,
    );
    // ... the provider's callbacks all posted and applied, and every status event relayed.
    let previous = '';
    const quiet = await happens(
      'callbacks applied and every status event relayed',
      async () => {
        const stats = await stack.simulatorStats(credential.id);
        const states = JSON.stringify(await stack.statesOf(runId));
        const stable = states === previous;
        previous = states;
        const accepted = new Set(subscriber.accepted);
        return (
          stable &&
          stats.callbacks.pending === 0 &&
          [...recorder.events.keys()].every((id) => accepted.has(id))
        );
      },
      180_000,
    );

    // The expander's backpressure counts each published batch once by its seq, however often it was
    // handled: never fewer in the end (a run still expanding would wait on its window for good), more
    // only where an expander killed between a publish and its checkpoint re-published that step in
    // fewer batches. A committed batch whose messages a backlog copy settled may still be on its way
    // to a sender when the run completes, so this is waited for.
    const batchesCounted = await happens(
      'every published batch counted as finished',
      async () => {
        const c = await stack.counters(runId);
        return c.batchesFinished >= c.batchesPublished;
      },
      60_000,
    );

    // Nothing died by itself after the chaos either.
    crashes.push(...stack.crashed());
    const counters = await stack.counters(runId);
    const states = await stack.statesOf(runId);
    const stats = await stack.simulatorStats(credential.id);
    const rows = await stack.rowsOf(runId);
    const n = (state: string): number => states[state] ?? 0;
    const unknown = n('UNKNOWN');
    const acceptedByProvider = n('SENT') + n('DELIVERED') + n('READ');
    const accepted = new Set(subscriber.accepted);
    const published = [...recorder.events.values()];
    const lost = published.filter((e) => !accepted.has(e.eventId)).map((e) => e.eventId);
    const notPublished = subscriber.accepted.filter((id) => !recorder.events.has(id));
    const unannounced = rows.filter((r) => recorder.statuses.get(r.id)?.has(r.state) !== true);
    const senderKills = SENDERS.reduce((sum, s) => sum + (kills[`sender-${s}`] ?? 0), 0);
    // Every event of every batch request, with the id it came under (what the subscriber dedupes on).
    const relayed = subscriber.received
      .flatMap((r) => {
        const body = JSON.parse(r.body) as {
          type: string;
          data: ({ id: string; type: string; data: MessageStatusV1 } | undefined)[];
        };
        return body.type === 'webhook.batch'
          ? body.data.map((item) => ({ webhookId: item?.id ?? '', type: item?.type ?? '', data: item?.data }))
          : [{ webhookId: r.webhookId, type: `not a batch: ${body.type}`, data: undefined }];
      })
      .filter((r) => accepted.has(r.webhookId));
    const foreign = relayed.filter(
      (r) => r.type !== 'message.status' || r.data?.runId !== runId || r.data.eventId !== r.webhookId,
    );
    process.stdout.write(
      `pipeline chaos figures: kills=${JSON.stringify(kills)} brokerRestarts=${brokerRestarts} ` +
        `crashes=${crashes.length} timeline=[${timeline.join(' ')}] chaos=${chaosSeconds.toFixed(0)}s | ` +
        `UNKNOWN=${unknown} (bound ${senderKills}x${MAX_CLAIMED}) duplicates=${stats.duplicates} lost=${lost.length} ` +
        `unannounced=${unannounced.length} | states=${JSON.stringify(states)} run=${JSON.stringify(counters)} | ` +
        `status events published=${published.length} (copies on topic ${recorder.copies}) relayed=${accepted.size} ` +
        `(requests ${subscriber.received.length}, invalid signatures ${subscriber.invalidSignatures()}, not on topic ${notPublished.length}) | ` +
        `simulator accepted=${stats.accepted} distinct=${stats.distinctMessages} refused=${stats.rejectedPermanent} ` +
        `5xx=${stats.errors5xx} callbacks=${JSON.stringify(stats.callbacks)} | ` +
        `completed=${completed} quiet=${quiet} wall=${((Date.now() - wallStarted) / 1000).toFixed(0)}s\n`,
    );
    if (crashes.length > 0) process.stdout.write(`crashes:\n  ${crashes.join('\n  ')}\n`);
    if (lost.length > 0) process.stdout.write(`lost event ids (first 20): ${lost.slice(0, 20).join(' ')}\n`);
    if (unannounced.length > 0)
      process.stdout.write(`unannounced rows (first 20): ${JSON.stringify(unannounced.slice(0, 20))}\n`);

    // Every stage was killed, each sender replica at least once, and the broker restarted once.
    expect(Object.keys(kills).sort()).toEqual(
      ['dispatcher', 'expander', 'ingest', ...SENDERS.map((s) => `sender-${s}`)].sort(),
    );
    expect(brokerRestarts).toBe(1);
    expect(crashes).toEqual([]);
    // No run stuck, no message pending or in flight: every recipient SENT, DELIVERED, READ, FAILED or UNKNOWN.
    expect(completed).toBe(true);
    expect(rows).toHaveLength(RECIPIENTS);
    expect(acceptedByProvider + n('FAILED') + unknown).toBe(RECIPIENTS);
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
    expect(batchesCounted).toBe(true);
    // A kill leaves at most what the sender held claimed UNKNOWN.
    expect(unknown).toBeLessThanOrEqual(senderKills * MAX_CLAIMED);
    // No message id reached the provider twice; every row the provider accepted was sent once.
    expect(stats.duplicates).toBe(0);
    expect(stats.duplicateIds).toEqual([]);
    expect(stats.distinctMessages).toBeGreaterThanOrEqual(acceptedByProvider);
    expect(stats.distinctMessages).toBeLessThanOrEqual(RECIPIENTS - REFUSED.length);
    const refused = (await stack.ds.query(
      'SELECT state FROM messages WHERE run_id = ? AND recipient IN (?)',
      [runId, REFUSED],
    )) as { state: string }[];
    // Refused by the provider: FAILED, or UNKNOWN when the claim expired before the refusal was recorded
    // (a kill, or a Kafka outage longer than the claim timeout while a retry of the same slice waited
    // to be published); never anything the provider accepted.
    expect(refused).toHaveLength(REFUSED.length);
    for (const row of refused) expect(['FAILED', 'UNKNOWN']).toContain(row.state);
    // The provider never gave up on a callback (it retries as long as a real one would).
    expect(stats.callbacks).toMatchObject({ failed: 0, dropped: 0, pending: 0 });
    // Every row's state was announced on the status topic, and every event there reached the subscriber once deduped.
    expect(quiet).toBe(true);
    expect(unannounced).toEqual([]);
    expect(lost).toEqual([]);
    expect(notPublished).toEqual([]);
    expect(foreign).toEqual([]);
    expect(subscriber.invalidSignatures()).toBe(0);
  });
});
