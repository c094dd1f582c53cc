import { randomBytes } from 'node:crypto';
import {
  CampaignApiClient,
  type DispatcherOperations,
  DispatcherApiClient,
  type JsonBodyOf,
  type RunView,
} from '@ums/client';
import { isScope, type RunCounters, Scope, Topics } from '@ums/contracts';
import { type KafkaConnectionOptions, KafkaNames } from '@ums/platform';
import { bearer, LoopbackSubscriber } from '@ums/testing';
import { Kafka, logLevel } from 'kafkajs';

/** What the pipeline's tenant key may do: credentials, campaigns and their subscriber, nothing more. */
export const PIPELINE_SCOPES: readonly Scope[] = [
  Scope.CredentialsWrite,
  Scope.CampaignsRead,
  Scope.CampaignsWrite,
  Scope.SubscribersRead,
  Scope.SubscribersWrite,
];

/** Where the stack's HTTP APIs answer. */
export interface PipelineUrls {
  readonly scheduler: string;
  readonly simulator: string;
  readonly ingest: string;
  readonly dispatcher: string;
}

export interface PipelineCampaignOptions {
  readonly urls: PipelineUrls;
  readonly brokers: string;
  /** TLS and SASL of a secured cluster (kafkaConnectionOptions), for the status check; plain `brokers` when omitted. */
  readonly kafka?: KafkaConnectionOptions;
  readonly recipients: number;
  /** The credential's ceiling in messages/s (the AIMD limiter's start and maximum). */
  readonly rate: number;
  /** Share of recipients the simulated provider refuses for good (0..1). */
  readonly permanentFailureRate: number;
  /** Share of sends answered 5xx / 429 by the simulated provider (0..1); they go through the retry tiers. */
  readonly error5xxRate: number;
  readonly rate429: number;
  /** Simulated provider latency per request. */
  readonly latency: { readonly minMs: number; readonly p50Ms: number; readonly p99Ms: number };
  /** Callbacks: how many sends get delivered and read, and how many callbacks come twice or out of order. */
  readonly callbacks: {
    readonly deliveredRate: number;
    readonly readRate: number;
    readonly duplicateRate: number;
    readonly outOfOrderRate: number;
    readonly delayMs: number;
  };
  /**
   * A key of the campaign's tenant with the campaigns, credentials and subscribers scopes: every call
   * to the scheduler and the dispatcher carries it (the tenant comes from the key).
   */
  readonly apiKey: string;
  /**
   * The operator key the services run with: it registers the loopback subscriber, an internal one (on a
   * private address), which only the operator may create; `X-Ums-Tenant` names the campaign's tenant.
   */
  readonly operatorKey: string;
  /** The tenant of `apiKey`, for which the operator registers the subscriber. */
  readonly tenantId: string;
  /** Events per request the subscriber asks for (`maxEventsPerRequest`): 1 is one event per request. */
  readonly subscriberBatch: number;
  /** Progress line per second while the campaign runs. */
  readonly say: (line: string) => void;
  readonly timeoutMs: number;
  /** Called once the pipeline has settled, before the status topic is read back for the check. */
  readonly onSettled?: () => void;
}

/** When each stage finished, in ms after the run was started (import times are before the start). */
export interface PipelineTimeline {
  readonly importMs: number;
  /** The first poll that saw a settled send, and a relayed status (1-second resolution). */
  readonly firstSentMs: number | null;
  readonly firstRelayedMs: number | null;
  readonly expandedMs: number | null;
  readonly sentMs: number | null;
  /** The first poll that saw every callback applied (1-second resolution). */
  readonly callbacksMs: number | null;
  /** When the subscriber first accepted the last status event (null if any is missing). */
  readonly relayedMs: number | null;
}

export interface PipelineCampaignResult {
  readonly credentialId: string;
  readonly campaignId: string;
  readonly runId: string;
  readonly runState: string;
  readonly startedAt: Date;
  readonly rowsAccepted: number;
  readonly counters: RunCounters;
  readonly simulator: {
    readonly accepted: number;
    readonly distinctMessages: number;
    readonly duplicates: number;
    readonly rejectedPermanent: number;
    readonly errors: number;
    readonly callbacksPosted: number;
    readonly callbacksFailed: number;
  };
  /** Distinct status events of this campaign on the status topic, and how many reached the subscriber. */
  readonly statusEvents: number;
  readonly relayed: number;
  readonly lost: number;
  readonly subscriberRequests: number;
  readonly invalidSignatures: number;
  readonly timeline: PipelineTimeline;
}

interface SimulatorStatsView {
  readonly accepted: number;
  readonly distinctMessages: number;
  readonly duplicates: number;
  readonly rejectedPermanent: number;
  readonly errors5xx: number;
  readonly throttled: number;
  readonly callbacks: {
    readonly scheduled: number;
    readonly delivered: number;
    readonly failed: number;
    readonly dropped: number;
    readonly pending: number;
  };
}

const SETTLED_RUN_STATES = new Set(['COMPLETED', 'FAILED', 'STOPPED']);

/**
 * One campaign through the whole pipeline, driven the way a user would, through the typed client of
 * the APIs (`@ums/client`): a simulator credential whose status callbacks go to webhook-ingest, a
 * subscriber (a real HTTP receiver on loopback that verifies every Standard Webhooks signature)
 * registered with the dispatcher, a campaign with a generated CSV audience uploaded to the campaign
 * API, then started. It prints a progress line per second per stage (imported, expanded, sent,
 * delivered/read, relayed) and, once everything has settled, compares the status topic with what the
 * subscriber received.
 */
export async function runPipelineCampaign(options: PipelineCampaignOptions): Promise<PipelineCampaignResult> {
  const { urls, say } = options;
  const scheduler = new CampaignApiClient({ baseUrl: urls.scheduler, apiKey: options.apiKey });
  const dispatcher = new DispatcherApiClient({ baseUrl: urls.dispatcher, apiKey: options.apiKey });
  const subscriber = await LoopbackSubscriber.start({ keepRequests: false, verifier: 'hmac' });
  try {
    const callbackSecret = `cb_${randomBytes(16).toString('hex')}`;
    const credential = await scheduler.credentials.create({
      name: 'simulator (pipeline)',
      provider: 'simulator',
      channel: 'whatsapp',
      config: { baseUrl: urls.simulator },
      callbackSecret,
      rateCeilingPerSec: options.rate,
      rateFloorPerSec: Math.max(1, Math.floor(options.rate / 10)),
    });
    const addresses = Array.from({ length: options.recipients }, (_, i) => phone(i));
    const refusedEvery =
      options.permanentFailureRate > 0 ? Math.max(1, Math.round(1 / options.permanentFailureRate)) : 0;
    // The simulator keys its settings and counts by our credential id, which the adapter sends.
    await callApi('PUT', `${urls.simulator}/_sim/credentials/${credential.id}`, {
      provider: 'simulator',
      latency: options.latency,
      error5xxRate: options.error5xxRate,
      rate429: options.rate429,
      permanentFailures:
        refusedEvery === 0 ? [] : addresses.filter((_, i) => i % refusedEvery === refusedEvery - 1),
      callbackUrl: `${urls.ingest}/v1/callbacks/simulator/${credential.id}`,
      callbackSecret,
      callbacks: { enabled: true, ...options.callbacks },
    });
    const campaign = await scheduler.campaigns.create({
      name: `Pipeline campaign of ${options.recipients}`,
      channel: 'whatsapp',
      credentialId: credential.id,
      template: { text: 'Hi {{first_name}}, your code is {{code}}' },
      schedule: { kind: 'now' },
    });
    const hook = await registerInternalSubscriber(urls.dispatcher, options, {
      url: subscriber.url('/ums-events'),
      eventTypes: ['message.status'],
      campaignId: campaign.id,
      internal: true,
      maxEventsPerRequest: options.subscriberBatch,
    });
    subscriber.secret = hook.secret;
    say(`credential ${credential.id}, campaign ${campaign.id}, subscriber ${hook.id} at ${subscriber.url()}`);

    const imported = await uploadAudience({ scheduler, say }, campaign.id, addresses);
    await scheduler.campaigns.act(campaign.id, 'start');
    const startedAt = new Date();
    const progress = await followProgress(
      options,
      scheduler,
      { campaignId: campaign.id, credentialId: credential.id },
      subscriber,
      startedAt,
    );
    options.onSettled?.();

    const published = await statusEventIds(
      options.kafka ?? { brokers: options.brokers.split(',') },
      campaign.id,
    );
    say(
      `status topic holds ${published.size.toLocaleString('en')} events of this campaign; waiting for the subscriber`,
    );
    // A delivery that failed (a timeout on a busy machine) waits on a retry tier (5 s, 30 s, 2 min,
    // 10 min): keep waiting while the dispatcher still has any for this subscriber in flight.
    const relayDeadline = Date.now() + options.timeoutMs;
    let missing = countMissing(published, subscriber);
    let inFlight = missing > 0 ? await deliveriesInFlight(dispatcher, hook.id) : 0;
    while (missing > 0 && inFlight > 0 && Date.now() < relayDeadline) {
      await sleep(1_000);
      missing = countMissing(published, subscriber);
      if (missing > 0) inFlight = await deliveriesInFlight(dispatcher, hook.id);
    }
    if (missing > 0)
      say(`${fmt(missing)} status events not relayed, ${fmt(inFlight)} deliveries still pending or retrying`);
    // The last first receipt, not now: the quiet seconds and the topic read above are the check, not the relay.
    const relayedMs =
      missing === 0 && subscriber.lastAcceptedAt !== undefined
        ? subscriber.lastAcceptedAt - startedAt.getTime()
        : null;
    const stats = await simulatorStats(urls.simulator, credential.id);
    return {
      credentialId: credential.id,
      campaignId: campaign.id,
      runId: progress.run.id,
      runState: progress.run.state,
      startedAt,
      rowsAccepted: imported.rowsAccepted,
      counters: progress.run.counters,
      simulator: {
        accepted: stats.accepted,
        distinctMessages: stats.distinctMessages,
        duplicates: stats.duplicates,
        rejectedPermanent: stats.rejectedPermanent,
        errors: stats.errors5xx + stats.throttled,
        callbacksPosted: stats.callbacks.delivered,
        callbacksFailed: stats.callbacks.failed + stats.callbacks.dropped,
      },
      statusEvents: published.size,
      relayed: published.size - missing,
      lost: missing,
      subscriberRequests: subscriber.requests,
      invalidSignatures: subscriber.invalidSignatures(),
      timeline: { importMs: imported.ms, ...progress.timeline, relayedMs },
    };
  } finally {
    await subscriber.stop();
  }
}

/** Recipient i's phone number: German mobile numbers, valid for libphonenumber's 'max' metadata. */
function phone(i: number): string {
  return `+4915${String(100_000_000 + i)}`;
}

async function uploadAudience(
  target: { readonly scheduler: CampaignApiClient; readonly say: (line: string) => void },
  campaignId: string,
  addresses: readonly string[],
): Promise<{ rowsAccepted: number; ms: number }> {
  const { scheduler, say } = target;
  const lines = addresses.map((address, i) => `${address},R${i},${i % 9973}`);
  const csv = `phone,first_name,code\n${lines.join('\n')}\n`;
  const started = Date.now();
  // The upload answers when the import is done; its row shows progress meanwhile.
  const upload = scheduler.audience.uploadCsv(campaignId, {
    fileName: 'audience.csv',
    contentType: 'text/csv',
    content: Buffer.from(csv),
  });
  let done = false;
  const watch = (async (): Promise<void> => {
    let last = 0;
    while (!done) {
      await sleep(1_000);
      if (done) return;
      // Best effort: a poll that fails is tried again a second later; the upload's answer decides.
      const page = await scheduler.audience
        .listImports(campaignId, { limit: 1 })
        .catch(() => ({ items: [] as { rowsAccepted: number; state: string }[] }));
      const current = page.items[0];
      if (current === undefined) continue;
      say(
        `import ${current.state}: ${current.rowsAccepted.toLocaleString('en')} of ${addresses.length.toLocaleString('en')} rows ` +
          `(${(current.rowsAccepted - last).toLocaleString('en')}/s)`,
      );
      last = current.rowsAccepted;
    }
  })();
  const summary = await upload.finally(() => {
    done = true;
  });
  await watch;
  const ms = Date.now() - started;
  const { rowsAccepted } = summary;
  say(
    `imported ${rowsAccepted.toLocaleString('en')} recipients in ${(ms / 1000).toFixed(1)} s ` +
      `(${Math.round(rowsAccepted / (ms / 1000)).toLocaleString('en')} rows/s; rejected ${summary.rowsRejected}, ` +
      `duplicates ${summary.rowsDuplicate})`,
  );
  return { rowsAccepted, ms };
}

/** Polls once a second until the run settled, its callbacks were applied and nothing moves any more. */
async function followProgress(
  options: PipelineCampaignOptions,
  scheduler: CampaignApiClient,
  ids: { readonly campaignId: string; readonly credentialId: string },
  subscriber: LoopbackSubscriber,
  startedAt: Date,
): Promise<{ run: RunView; timeline: Omit<PipelineTimeline, 'importMs' | 'relayedMs'> }> {
  const { urls, say } = options;
  const { campaignId, credentialId } = ids;
  const since = (): number => Date.now() - startedAt.getTime();
  let expandedMs: number | null = null;
  let sentMs: number | null = null;
  let callbacksMs: number | null = null;
  let firstSentMs: number | null = null;
  let firstRelayedMs: number | null = null;
  let previous = { total: 0, sent: 0, statuses: 0, relayed: 0 };
  let quietSeconds = 0;
  for (;;) {
    await sleep(1_000);
    // The runs list, not the campaign view: that one counts the audience's contacts on every read.
    const view = await scheduler.runs.list(campaignId, { limit: 1 });
    const run = view.items[0];
    if (run === undefined) continue;
    const stats = await simulatorStats(urls.simulator, credentialId);
    const c = run.counters;
    const settledSends = c.sent + c.delivered + c.read + c.failed + c.unknown;
    const statuses = c.delivered + c.read;
    const relayed = subscriber.acceptedCount;
    if (expandedMs === null && run.expandedAt !== null) expandedMs = since();
    if (firstSentMs === null && settledSends > 0) firstSentMs = since();
    if (firstRelayedMs === null && relayed > 0) firstRelayedMs = since();
    const settled = SETTLED_RUN_STATES.has(run.state) && c.pending === 0 && c.sending === 0;
    if (sentMs === null && settled) sentMs = since();
    say(
      `${run.state.padEnd(9)} expanded ${fmt(c.total)} (+${fmt(c.total - previous.total)}/s) | ` +
        `sent ${fmt(settledSends)} (+${fmt(settledSends - previous.sent)}/s) failed ${fmt(c.failed)} unknown ${fmt(c.unknown)} | ` +
        `delivered ${fmt(c.delivered)} read ${fmt(c.read)} (callbacks pending ${fmt(stats.callbacks.pending)}) | ` +
        `relayed ${fmt(relayed)} (+${fmt(relayed - previous.relayed)}/s)`,
    );
    const applying = statuses !== previous.statuses || stats.callbacks.pending > 0;
    const moving = applying || relayed !== previous.relayed;
    previous = { total: c.total, sent: settledSends, statuses, relayed };
    // Applied once the run settled and the status counters stood still for a second with nothing left
    // to post (the relay may still be going: it has its own end, relayedMs).
    if (settled && callbacksMs === null && !applying) callbacksMs = since();
    quietSeconds = settled && !moving ? quietSeconds + 1 : 0;
    // Two quiet seconds: the sender has applied what ingest published, the dispatcher has relayed it.
    if (quietSeconds >= 2)
      return { run, timeline: { expandedMs, sentMs, callbacksMs, firstSentMs, firstRelayedMs } };
    if (since() > options.timeoutMs)
      throw new Error(`the pipeline did not settle within ${options.timeoutMs / 1000} s (run ${run.state})`);
  }
}

/** Distinct event ids of one campaign on the status topic, read from the start up to its current end. */
async function statusEventIds(connection: KafkaConnectionOptions, campaignId: string): Promise<Set<string>> {
  const kafka = new Kafka({
    clientId: 'pipeline-check',
    ...connection,
    logLevel: logLevel.NOTHING,
  });
  const topic = new KafkaNames().topic(Topics.messageStatus.name);
  const admin = kafka.admin();
  await admin.connect();
  const ends = await admin.fetchTopicOffsets(topic);
  await admin.disconnect();
  const remaining = new Map(
    ends.filter((p) => Number(p.high) > Number(p.low)).map((p) => [p.partition, Number(p.high)]),
  );
  const ids = new Set<string>();
  if (remaining.size === 0) return ids;
  const consumer = kafka.consumer({ groupId: `pipeline-check-${randomBytes(4).toString('hex')}` });
  await consumer.connect();
  await consumer.subscribe({ topic, fromBeginning: true });
  // A campaign's events carry its id; the JSON is matched cheaply before it is parsed.
  const needle = `"campaignId":"${campaignId}"`;
  await new Promise<void>((resolve, reject) => {
    consumer
      .run({
        eachBatchAutoResolve: true,
        eachBatch: async ({ batch }) => {
          for (const message of batch.messages) {
            const text = message.value?.toString('utf8') ?? '';
            if (text.includes(needle)) ids.add((JSON.parse(text) as { eventId: string }).eventId);
          }
          const end = remaining.get(batch.partition);
          if (end !== undefined && Number(batch.lastOffset()) + 1 >= end) remaining.delete(batch.partition);
          if (remaining.size === 0) resolve();
          await Promise.resolve();
        },
      })
      .catch(reject);
  });
  await consumer.disconnect();
  return ids;
}

/** Deliveries to the subscriber the dispatcher has not finished (pending or waiting on a retry tier), up to 100. */
async function deliveriesInFlight(dispatcher: DispatcherApiClient, subscriberId: string): Promise<number> {
  let count = 0;
  for (const state of ['PENDING', 'RETRYING'] as const) {
    count += (await dispatcher.deliveries.list(subscriberId, { state, limit: 100 })).items.length;
  }
  return count;
}

function countMissing(published: ReadonlySet<string>, subscriber: LoopbackSubscriber): number {
  let missing = 0;
  for (const id of published) if (!subscriber.hasAccepted(id)) missing++;
  return missing;
}

async function simulatorStats(simulator: string, credentialId: string): Promise<SimulatorStatsView> {
  return callApi<SimulatorStatsView>('GET', `${simulator}/_sim/stats?credentialId=${credentialId}`);
}

export interface TenantKeyRequest {
  /** The campaign-scheduler, which serves `POST /v1/api-keys`. */
  readonly schedulerUrl: string;
  /** The operator key the services were started with (AUTH_OPERATOR_KEY). */
  readonly operatorKey: string;
  readonly tenantId: string;
  readonly scopes: readonly Scope[];
  /** The key stops working this long after it is made (never when left out). */
  readonly expiresInMs?: number;
}

/**
 * A new API key of a tenant, made with the operator key as an operator would (`X-Ums-Tenant` names the
 * tenant). Answers the token, which the caller must never print; a refusal (UmsApiError) carries the
 * service's code and message, never the keys.
 */
export async function createTenantApiKey(request: TenantKeyRequest): Promise<string> {
  const operator = new CampaignApiClient({
    baseUrl: request.schedulerUrl,
    apiKey: request.operatorKey,
    tenant: request.tenantId,
  });
  const created = await operator.apiKeys.create({
    name: `${request.tenantId} tools`,
    // A tenant key holds tenant scopes only (an operator-only one would be refused).
    scopes: request.scopes.filter(isScope),
    ...(request.expiresInMs === undefined
      ? {}
      : { expiresAt: new Date(Date.now() + request.expiresInMs).toISOString() }),
  });
  return created.key;
}

/** An internal (loopback) subscriber of `tenantId`, registered with the operator key as only it may. */
export async function registerInternalSubscriber(
  dispatcherUrl: string,
  keys: { readonly operatorKey: string; readonly tenantId: string },
  subscriber: JsonBodyOf<DispatcherOperations['Subscribers_create']>,
): Promise<{ id: string; secret: string }> {
  const operator = new DispatcherApiClient({
    baseUrl: dispatcherUrl,
    apiKey: keys.operatorKey,
    tenant: keys.tenantId,
  });
  const created = await operator.subscribers.create(subscriber);
  // The document gives the secret in the answers of create and rotate-secret only.
  if (created.secret === undefined)
    throw new Error(`subscriber ${created.id} was created without its secret`);
  return { id: created.id, secret: created.secret };
}

/**
 * Untyped JSON calls with one key, by method and URL (the chaos test's); the pipeline above calls the
 * APIs through their typed client, `@ums/client`.
 */
export type KeyedApi = <T = unknown>(method: string, url: string, body?: unknown) => Promise<T>;

/** callApi with this key on every call. */
export function keyedApi(apiKey: string): KeyedApi {
  return <T = unknown>(method: string, url: string, body?: unknown): Promise<T> =>
    callApi<T>(method, url, body, apiKey);
}

/**
 * JSON over HTTP, with `Authorization: Bearer <apiKey>` when a key is given: for routes outside the
 * OpenAPI documents (the simulator's `/_sim` routes, which take none); throws on a non-2xx answer
 * with its body, never the key.
 */
export async function callApi<T = unknown>(
  method: string,
  url: string,
  body?: unknown,
  apiKey?: string,
): Promise<T> {
  const response = await fetch(url, {
    method,
    headers: {
      ...(apiKey === undefined ? {} : bearer(apiKey)),
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  if (!response.ok) throw new Error(`${method} ${url} answered ${response.status}: ${text}`);
  return (text === '' ? undefined : JSON.parse(text)) as T;
}

function fmt(n: number): string {
  return n.toLocaleString('en');
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
