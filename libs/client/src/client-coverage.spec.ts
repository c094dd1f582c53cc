import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { workspaceRoot } from '@ums/testing';
import type { DispatcherOperations, JsonBodyOf, SchedulerOperations } from './api.types';
import { CampaignApiClient } from './campaign-api.client';
import type { ClientOptions, FetchLike, UploadFile } from './client.options';
import { DispatcherApiClient } from './dispatcher-api.client';

interface Operation {
  readonly operationId: string;
  readonly parameters?: readonly { readonly name: string; readonly in: string }[];
  readonly requestBody?: { readonly content: Record<string, { readonly example?: unknown }> };
  readonly responses: Record<string, { readonly content?: Record<string, { readonly example?: unknown }> }>;
}
type Document = { readonly paths: Record<string, Record<string, Operation>> };

function documentOf(service: string): Document {
  return JSON.parse(
    readFileSync(join(workspaceRoot(), 'docs', 'openapi', `${service}.json`), 'utf8'),
  ) as Document;
}

const scheduler = documentOf('campaign-scheduler');
const dispatcher = documentOf('webhook-dispatcher');

function operationsOf(document: Document): { method: string; path: string; op: Operation }[] {
  return Object.entries(document.paths).flatMap(([path, item]) =>
    Object.entries(item).map(([method, op]) => ({ method: method.toUpperCase(), path, op })),
  );
}

/** The request example of an operation, as its body type: the documents' examples match their schemas. */
function example<Op>(document: Document, operationId: string): JsonBodyOf<Op> {
  const op = operationsOf(document).find((o) => o.op.operationId === operationId)?.op;
  const body = op?.requestBody?.content['application/json']?.example;
  if (body === undefined) throw new Error(`${operationId} has no request example`);
  return body as JsonBodyOf<Op>;
}
const schedulerBody = <K extends keyof SchedulerOperations>(id: K): JsonBodyOf<SchedulerOperations[K]> =>
  example<SchedulerOperations[K]>(scheduler, id);
const dispatcherBody = <K extends keyof DispatcherOperations>(id: K): JsonBodyOf<DispatcherOperations[K]> =>
  example<DispatcherOperations[K]>(dispatcher, id);

/** One value per path parameter name; `pause` is an action of campaigns and of runs alike. */
const P = {
  id: 'id_1',
  campaignId: 'cmp_1',
  runId: '7',
  importId: '17',
  testSendId: '42',
  deliveryId: '9',
  action: 'pause',
  channel: 'sms',
  address: '+49 151 1234/5678',
} as const;

/** The options of every create call: a create the document gives an Idempotency-Key must send it. */
const RETRY = { idempotencyKey: 'retry-1' };

const csv = (): UploadFile => ({
  fileName: 'list.csv',
  contentType: 'text/csv',
  content: new TextEncoder().encode('phone\n+4915112345678\n'),
});

/** A call of every operation, by operationId: a new operation without a client method fails to compile. */
const SCHEDULER_CALLS: Record<keyof SchedulerOperations, (c: CampaignApiClient) => Promise<unknown>> = {
  ApiKeys_create: (c) => c.apiKeys.create(schedulerBody('ApiKeys_create'), RETRY),
  ApiKeys_list: (c) => c.apiKeys.list({ limit: 10 }),
  ApiKeys_get: (c) => c.apiKeys.get(P.id),
  ApiKeys_revoke: (c) => c.apiKeys.revoke(P.id),
  Audit_list: (c) => c.audit.list({ action: 'POST /v1/campaigns' }),
  Credentials_create: (c) => c.credentials.create(schedulerBody('Credentials_create'), RETRY),
  Credentials_list: (c) => c.credentials.list(),
  Credentials_get: (c) => c.credentials.get(P.id),
  Credentials_update: (c) => c.credentials.update(P.id, schedulerBody('Credentials_update')),
  Credentials_rate: (c) => c.credentials.rate(P.id, { seconds: 60 }),
  Credits_view: (c) => c.credits.view(),
  Credits_ledger: (c) => c.credits.ledger({ channel: 'sms', limit: 10 }),
  Credits_topUp: (c) => c.credits.topUp(schedulerBody('Credits_topUp')),
  Credits_setPrice: (c) => c.credits.setPrice(P.channel, schedulerBody('Credits_setPrice')),
  Credits_setQuotas: (c) => c.credits.setQuotas(schedulerBody('Credits_setQuotas')),
  Campaigns_create: (c) => c.campaigns.create(schedulerBody('Campaigns_create'), RETRY),
  Campaigns_list: (c) => c.campaigns.list(),
  Campaigns_get: (c) => c.campaigns.get(P.campaignId),
  Campaigns_act: (c) => c.campaigns.act(P.campaignId, P.action),
  Campaigns_update: (c) => c.campaigns.update(P.campaignId, schedulerBody('Campaigns_update')),
  TestSends_create: (c) => c.testSends.create(P.campaignId, schedulerBody('TestSends_create'), RETRY),
  TestSends_list: (c) => c.testSends.list(P.campaignId, { limit: 10 }),
  TestSends_get: (c) => c.testSends.get(P.campaignId, P.testSendId),
  StatusRefresh_request: (c) => c.statusRefresh.request(P.campaignId, P.runId),
  StatusRefresh_get: (c) => c.statusRefresh.get(P.campaignId, P.runId),
  Runs_list: (c) => c.runs.list(P.campaignId),
  Runs_get: (c) => c.runs.get(P.campaignId, P.runId),
  Runs_events: (c) => c.runs.events(P.campaignId, P.runId, { after: '0' }),
  Runs_act: (c) => c.runs.act(P.campaignId, P.runId, P.action),
  RunTimeline_get: (c) => c.runs.timeline(P.campaignId, P.runId),
  Audience_uploadCsv: (c) => c.audience.uploadCsv(P.campaignId, csv()),
  Audience_importUrl: (c) => c.audience.importUrl(P.campaignId, schedulerBody('Audience_importUrl')),
  Audience_importInline: (c) => c.audience.importInline(P.campaignId, schedulerBody('Audience_importInline')),
  Audience_listImports: (c) => c.audience.listImports(P.campaignId),
  Audience_getImport: (c) => c.audience.getImport(P.campaignId, P.importId),
  Audience_rejects: (c) => c.audience.rejects(P.campaignId, P.importId),
  ContactLists_create: (c) => c.contactLists.create(schedulerBody('ContactLists_create'), RETRY),
  ContactLists_list: (c) => c.contactLists.list({ limit: 10 }),
  ContactLists_get: (c) => c.contactLists.get(P.id),
  ContactLists_delete: (c) => c.contactLists.delete(P.id),
  ContactLists_members: (c) => c.contactLists.members(P.id, { after: '0' }),
  ContactLists_importCsv: (c) => c.contactLists.importCsv(P.id, csv()),
  ContactLists_importUrl: (c) => c.contactLists.importUrl(P.id, schedulerBody('ContactLists_importUrl')),
  ContactLists_getImport: (c) => c.contactLists.getImport(P.id, P.importId),
  ContactLists_rejects: (c) => c.contactLists.rejects(P.id, P.importId),
  ContactListAudience_use: (c) =>
    c.contactLists.useInCampaign(P.campaignId, schedulerBody('ContactListAudience_use')),
  Messages_list: (c) => c.messages.list(P.campaignId, P.runId, { state: ['FAILED', 'UNKNOWN'] }),
  Messages_exportCsv: (c) => c.messages.exportCsv(P.campaignId, P.runId),
  Messages_findByIdempotencyKey: (c) => c.messages.findByIdempotencyKey({ idempotencyKey: 'k1' }),
  Messages_get: (c) => c.messages.get(P.id),
  Sends_send: (c) => c.sends.send(schedulerBody('Sends_send'), RETRY),
  Sends_bulk: (c) => c.sends.bulk(schedulerBody('Sends_bulk'), RETRY),
  OptOuts_list: (c) => c.optOuts.list({ channel: 'sms' }),
  OptOuts_exportCsv: (c) => c.optOuts.exportCsv(),
  OptOuts_importCsv: (c) => c.optOuts.importCsv(csv(), { defaultCountry: 'DE' }),
  OptOuts_add: (c) => c.optOuts.add(P.channel, P.address),
  OptOuts_remove: (c) => c.optOuts.remove(P.channel, P.address),
  DeadLetters_list: (c) => c.deadLetters.list(),
  DeadLetters_replay: (c) => c.deadLetters.replay(schedulerBody('DeadLetters_replay')),
  DeadLetters_get: (c) => c.deadLetters.get(P.id),
  Whoami_get: (c) => c.whoami.get(),
  Live_campaigns: (c) => c.live.campaigns(),
  Live_run: (c) => c.live.run(P.campaignId, P.runId),
};

const DISPATCHER_CALLS: Record<keyof DispatcherOperations, (c: DispatcherApiClient) => Promise<unknown>> = {
  Subscribers_create: (c) => c.subscribers.create(dispatcherBody('Subscribers_create'), RETRY),
  Subscribers_list: (c) => c.subscribers.list(),
  Subscribers_get: (c) => c.subscribers.get(P.id),
  Subscribers_update: (c) => c.subscribers.update(P.id, dispatcherBody('Subscribers_update')),
  Subscribers_delete: (c) => c.subscribers.delete(P.id),
  Subscribers_rotateSecret: (c) => c.subscribers.rotateSecret(P.id),
  Deliveries_list: (c) => c.deliveries.list(P.id, { state: 'DEAD_LETTERED' }),
  Deliveries_replayOne: (c) => c.deliveries.replayOne(P.id, P.deliveryId),
  Deliveries_replaySince: (c) => c.deliveries.replaySince(P.id, dispatcherBody('Deliveries_replaySince')),
  Deliveries_resurrect: (c) => c.deliveries.resurrect(P.id),
};

interface Sent {
  readonly method: string;
  readonly url: URL;
  readonly headers: Record<string, string>;
  readonly body: string | undefined;
}

/** The documented 2xx answer of an operation: its status, content type and example. */
function successOf(op: Operation): { status: number; type: string | undefined; example: unknown } {
  const [status, response] = Object.entries(op.responses).find(([code]) => code.startsWith('2')) ?? [];
  if (status === undefined) throw new Error(`${op.operationId} documents no 2xx answer`);
  const [type, media] = Object.entries(response?.content ?? {})[0] ?? [];
  return { status: Number(status), type, example: media?.example };
}

/** A client whose fetch answers the documented 2xx answer and records each request. */
function recording(make: (options: ClientOptions) => unknown) {
  const sent: Sent[] = [];
  let answer = (): Response => new Response(null, { status: 500 });
  const fetchFn: FetchLike = async (url, init) => {
    const body = init.body instanceof ReadableStream ? await new Response(init.body).text() : init.body;
    sent.push({
      method: init.method ?? 'GET',
      url: new URL(url),
      headers: Object.fromEntries(new Headers(init.headers).entries()),
      body: typeof body === 'string' ? body : undefined,
    });
    return answer();
  };
  const client = make({ baseUrl: 'http://api.test:1234/', apiKey: 'umsk_test', fetch: fetchFn });
  return {
    client,
    sent,
    answering(op: Operation): void {
      const { status, type, example } = successOf(op);
      answer = () =>
        type === undefined
          ? new Response(null, { status })
          : new Response(type.includes('json') ? JSON.stringify(example) : String(example), {
              status,
              headers: { 'content-type': type },
            });
    },
  };
}

async function textOf(stream: unknown): Promise<string> {
  return new Response(stream as ReadableStream<Uint8Array>).text();
}

const SERVICES: {
  service: string;
  document: Document;
  calls: Record<string, (c: never) => Promise<unknown>>;
  make: (options: ClientOptions) => unknown;
}[] = [
  {
    service: 'campaign-scheduler',
    document: scheduler,
    calls: SCHEDULER_CALLS,
    make: (options) => new CampaignApiClient(options),
  },
  {
    service: 'webhook-dispatcher',
    document: dispatcher,
    calls: DISPATCHER_CALLS,
    make: (options) => new DispatcherApiClient(options),
  },
];

describe.each(SERVICES)('the client of docs/openapi/$service.json', ({ document, calls, make }) => {
  const operations = operationsOf(document);

  it('has a method for every operation, and none for an operation the document lacks', () => {
    expect(operations.length).toBeGreaterThan(5);
    expect(Object.keys(calls).sort()).toEqual(operations.map((o) => o.op.operationId).sort());
  });

  it.each(operations.map((o) => [o.op.operationId, o] as const))(
    '%s sends its method and path, and answers the documented body',
    async (_id, { method, path, op }) => {
      const call = calls[op.operationId];
      if (call === undefined) throw new Error(`no client method for ${op.operationId}`);
      const { client, sent, answering } = recording(make);
      answering(op);
      const answer = await call(client as never);
      const expectedPath = path.replace(/\{(\w+)\}/g, (_m, name: string) =>
        encodeURIComponent(P[name as keyof typeof P]),
      );
      expect(sent).toHaveLength(1);
      const [request] = sent;
      expect({ method: request?.method, path: request?.url.pathname }).toEqual({
        method,
        path: expectedPath,
      });
      expect(request?.headers['authorization']).toBe('Bearer umsk_test');
      const idempotent = (op.parameters ?? []).some((p) => p.in === 'header' && p.name === 'Idempotency-Key');
      expect(request?.headers['idempotency-key']).toBe(idempotent ? RETRY.idempotencyKey : undefined);
      const documented = op.requestBody?.content['application/json']?.example;
      if (documented !== undefined) expect(JSON.parse(request?.body ?? '')).toEqual(documented);
      const { type, example } = successOf(op);
      if (type === undefined) expect(answer).toBeUndefined();
      else if (type.includes('json')) expect(answer).toEqual(example);
      else expect(await textOf(answer)).toBe(String(example));
    },
  );
});
