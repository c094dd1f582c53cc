import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { AuthErrorCode, type Scope, TENANT_HEADER } from '@ums/contracts';
import { type JsonAnswer, TEST_OPERATOR_KEY } from '@ums/testing';
import {
  AccessStack,
  type Resources,
  seedTenantA,
  type Snapshot,
  TENANT_A,
  TENANT_B,
} from './access-fixture';

jest.setTimeout(600_000);

/**
 * What tenant B's key gets on tenant A's resource: 404 as for a missing id (`hidden`), its own rows only
 * (`own`: a list with none of A's, or a create that lands in B), or a refusal to use A's resource in B's
 * request (`refused`, with its status).
 */
type Foreign = { kind: 'hidden' } | { kind: 'own' } | { kind: 'refused'; status: number };

interface RouteCase {
  readonly service: 'scheduler' | 'dispatcher';
  readonly path: (r: Resources) => string;
  /** The body of the calls (the same for every key), when the route takes one. */
  readonly body?: (r: Resources) => unknown;
  /** The status of tenant A's own call with every scope. */
  readonly ok: number;
  /** Puts A's resource in the state the own call needs (after every refusal has been tried). */
  readonly before?: (stack: AccessStack, r: Resources) => Promise<void>;
  readonly foreign: Foreign;
  /** A live stream (server-sent events): a 200 answer is read up to its first event, then closed. */
  readonly stream?: true;
  /**
   * Its scope is the operator key's alone (OPERATOR_ONLY_SCOPES): every tenant key is refused it, so the
   * own call is the operator's, acting for tenant A (X-Ums-Tenant).
   */
  readonly operatorOnly?: true;
}

const hidden: Foreign = { kind: 'hidden' };
const own: Foreign = { kind: 'own' };
const campaignPath = (r: Resources): string => `/v1/campaigns/${r.campaignId}`;
const runPath = (r: Resources): string => `${campaignPath(r)}/runs/${r.runId}`;
const subscriberPath = (r: Resources): string => `/v1/subscribers/${r.subscriberId}`;
const listPath = (r: Resources): string => `/v1/contact-lists/${r.contactListId}`;

/**
 * Every scoped or authenticated route of both services. A route the services register but this table
 * lacks fails the test, so a new route cannot skip the matrix. Entries are in the order their own calls
 * run: the ones that change or remove what later ones need come last.
 */
const ROUTES: Record<string, RouteCase> = {
  'GET /v1/campaigns': { service: 'scheduler', path: () => '/v1/campaigns', ok: 200, foreign: own },
  'GET /v1/campaigns/:campaignId': { service: 'scheduler', path: campaignPath, ok: 200, foreign: hidden },
  'GET /v1/campaigns/:campaignId/runs': {
    service: 'scheduler',
    path: (r) => `${campaignPath(r)}/runs`,
    ok: 200,
    foreign: hidden,
  },
  'GET /v1/campaigns/:campaignId/runs/:runId': {
    service: 'scheduler',
    path: runPath,
    ok: 200,
    foreign: hidden,
  },
  'GET /v1/campaigns/:campaignId/runs/:runId/events': {
    service: 'scheduler',
    path: (r) => `${runPath(r)}/events`,
    ok: 200,
    foreign: hidden,
  },
  'GET /v1/campaigns/:campaignId/runs/:runId/timeline': {
    service: 'scheduler',
    path: (r) => `${runPath(r)}/timeline`,
    ok: 200,
    foreign: hidden,
  },
  'GET /v1/campaigns/:campaignId/runs/:runId/status-refresh': {
    service: 'scheduler',
    path: (r) => `${runPath(r)}/status-refresh`,
    ok: 200,
    foreign: hidden,
  },
  'GET /v1/campaigns/:campaignId/test-sends': {
    service: 'scheduler',
    path: (r) => `${campaignPath(r)}/test-sends`,
    ok: 200,
    foreign: hidden,
  },
  'GET /v1/campaigns/:campaignId/test-sends/:testSendId': {
    service: 'scheduler',
    path: (r) => `${campaignPath(r)}/test-sends/${r.testSendId}`,
    ok: 200,
    foreign: hidden,
  },
  'GET /v1/contact-lists': { service: 'scheduler', path: () => '/v1/contact-lists', ok: 200, foreign: own },
  'GET /v1/contact-lists/:id': { service: 'scheduler', path: listPath, ok: 200, foreign: hidden },
  'GET /v1/contact-lists/:id/members': {
    service: 'scheduler',
    path: (r) => `${listPath(r)}/members`,
    ok: 200,
    foreign: hidden,
  },
  'GET /v1/contact-lists/:id/imports/:importId': {
    service: 'scheduler',
    path: (r) => `${listPath(r)}/imports/${r.listImportId}`,
    ok: 200,
    foreign: hidden,
  },
  'GET /v1/contact-lists/:id/imports/:importId/rejects': {
    service: 'scheduler',
    path: (r) => `${listPath(r)}/imports/${r.listImportId}/rejects`,
    ok: 200,
    foreign: hidden,
  },
  'GET /v1/live/campaigns': {
    service: 'scheduler',
    path: () => '/v1/live/campaigns',
    ok: 200,
    foreign: own,
    stream: true,
  },
  'GET /v1/live/campaigns/:campaignId/runs/:runId': {
    service: 'scheduler',
    path: (r) => `/v1/live/campaigns/${r.campaignId}/runs/${r.runId}`,
    ok: 200,
    foreign: hidden,
    stream: true,
  },
  // Open to any credential (no scope): it answers the caller's own principal.
  'GET /v1/whoami': { service: 'scheduler', path: () => '/v1/whoami', ok: 200, foreign: own },
  'GET /v1/campaigns/:campaignId/audience/imports': {
    service: 'scheduler',
    path: (r) => `${campaignPath(r)}/audience/imports`,
    ok: 200,
    foreign: hidden,
  },
  'GET /v1/campaigns/:campaignId/audience/imports/:importId': {
    service: 'scheduler',
    path: (r) => `${campaignPath(r)}/audience/imports/${r.importId}`,
    ok: 200,
    foreign: hidden,
  },
  'GET /v1/campaigns/:campaignId/audience/imports/:importId/rejects': {
    service: 'scheduler',
    path: (r) => `${campaignPath(r)}/audience/imports/${r.importId}/rejects`,
    ok: 200,
    foreign: hidden,
  },
  'GET /v1/campaigns/:campaignId/runs/:runId/messages': {
    service: 'scheduler',
    path: (r) => `${runPath(r)}/messages`,
    ok: 200,
    foreign: hidden,
  },
  'GET /v1/campaigns/:campaignId/runs/:runId/messages/export.csv': {
    service: 'scheduler',
    path: (r) => `${runPath(r)}/messages/export.csv`,
    ok: 200,
    foreign: hidden,
  },
  'GET /v1/messages': {
    service: 'scheduler',
    path: (r) => `/v1/messages?idempotencyKey=${r.idempotencyKey}`,
    ok: 200,
    foreign: hidden,
  },
  'GET /v1/messages/:id': {
    service: 'scheduler',
    path: (r) => `/v1/messages/${r.messageId}`,
    ok: 200,
    foreign: hidden,
  },
  'GET /v1/dead-letters': { service: 'scheduler', path: () => '/v1/dead-letters', ok: 200, foreign: own },
  'GET /v1/dead-letters/:id': {
    service: 'scheduler',
    path: (r) => `/v1/dead-letters/${r.deadLetterId}`,
    ok: 200,
    foreign: hidden,
  },
  'GET /v1/credentials': { service: 'scheduler', path: () => '/v1/credentials', ok: 200, foreign: own },
  'GET /v1/credentials/:id': {
    service: 'scheduler',
    path: (r) => `/v1/credentials/${r.credentialId}`,
    ok: 200,
    foreign: hidden,
  },
  'GET /v1/credentials/:id/rate': {
    service: 'scheduler',
    path: (r) => `/v1/credentials/${r.credentialId}/rate`,
    ok: 200,
    foreign: hidden,
  },
  'GET /v1/api-keys': { service: 'scheduler', path: () => '/v1/api-keys', ok: 200, foreign: own },
  'GET /v1/api-keys/:id': {
    service: 'scheduler',
    path: (r) => `/v1/api-keys/${r.apiKeyId}`,
    ok: 200,
    foreign: hidden,
  },
  'GET /v1/audit-events': { service: 'scheduler', path: () => '/v1/audit-events', ok: 200, foreign: own },
  'GET /v1/opt-outs': { service: 'scheduler', path: () => '/v1/opt-outs', ok: 200, foreign: own },
  'GET /v1/credits': { service: 'scheduler', path: () => '/v1/credits', ok: 200, foreign: own },
  'GET /v1/credits/ledger': { service: 'scheduler', path: () => '/v1/credits/ledger', ok: 200, foreign: own },
  'GET /v1/opt-outs/export.csv': {
    service: 'scheduler',
    path: () => '/v1/opt-outs/export.csv',
    ok: 200,
    foreign: own,
  },
  'GET /v1/subscribers': { service: 'dispatcher', path: () => '/v1/subscribers', ok: 200, foreign: own },
  'GET /v1/subscribers/:id': { service: 'dispatcher', path: subscriberPath, ok: 200, foreign: hidden },
  'GET /v1/subscribers/:id/deliveries': {
    service: 'dispatcher',
    path: (r) => `${subscriberPath(r)}/deliveries`,
    ok: 200,
    foreign: hidden,
  },
  'POST /v1/campaigns': {
    service: 'scheduler',
    path: () => '/v1/campaigns',
    body: (r) => ({
      name: 'copy',
      channel: 'sms',
      credentialId: r.credentialId,
      template: { text: 'Hi' },
      schedule: { kind: 'now' },
    }),
    ok: 201,
    foreign: { kind: 'refused', status: 400 },
  },
  'POST /v1/messages': {
    service: 'scheduler',
    path: () => '/v1/messages',
    body: (r) => ({
      channel: 'sms',
      credentialId: r.credentialId,
      content: { text: 'Your code is 4711' },
      recipient: { address: '+4915100000003' },
    }),
    ok: 202,
    // Tenant B cannot send with A's credential: refused as an unknown one, before anything is stored.
    foreign: { kind: 'refused', status: 400 },
  },
  'POST /v1/sends': {
    service: 'scheduler',
    path: () => '/v1/sends',
    body: (r) => ({
      campaignName: 'matrix send',
      channel: 'sms',
      credentialId: r.credentialId,
      content: { text: 'Hi {{first_name}}' },
      recipients: [{ address: '+4915100000004', variables: { first_name: 'Ada' } }],
      sendAt: '2099-01-01T00:00:00Z',
    }),
    ok: 202,
    foreign: { kind: 'refused', status: 400 },
  },
  'POST /v1/campaigns/:campaignId/audience/inline': {
    service: 'scheduler',
    path: (r) => `${campaignPath(r)}/audience/inline`,
    body: () => ({ recipients: [{ address: '+4915100000002' }] }),
    ok: 201,
    foreign: hidden,
  },
  'POST /v1/campaigns/:campaignId/audience/url': {
    service: 'scheduler',
    path: (r) => `${campaignPath(r)}/audience/url`,
    // Loopback: accepted (202) and then refused by the fetcher's SSRF guard, so nothing leaves the machine.
    body: () => ({ url: 'http://127.0.0.1:9/list.csv' }),
    ok: 202,
    foreign: hidden,
  },
  'POST /v1/campaigns/:campaignId/audience/csv': {
    service: 'scheduler',
    path: (r) => `${campaignPath(r)}/audience/csv`,
    body: () => ({}),
    ok: 415,
    foreign: hidden,
  },
  'POST /v1/campaigns/:campaignId/audience/lists': {
    service: 'scheduler',
    path: (r) => `${campaignPath(r)}/audience/lists`,
    body: (r) => ({ listId: r.contactListId }),
    ok: 201,
    foreign: hidden,
  },
  'POST /v1/campaigns/:campaignId/test-sends': {
    service: 'scheduler',
    path: (r) => `${campaignPath(r)}/test-sends`,
    body: () => ({ recipients: [{ to: '+4915100000006', variables: { first_name: 'Ada' } }] }),
    ok: 202,
    foreign: hidden,
  },
  'PATCH /v1/campaigns/:campaignId': {
    service: 'scheduler',
    path: campaignPath,
    body: () => ({ priority: 7 }),
    ok: 200,
    foreign: hidden,
  },
  'POST /v1/contact-lists': {
    service: 'scheduler',
    path: () => '/v1/contact-lists',
    body: () => ({ name: 'copy', channel: 'sms' }),
    ok: 201,
    foreign: own,
  },
  'POST /v1/contact-lists/:id/imports': {
    service: 'scheduler',
    path: (r) => `${listPath(r)}/imports`,
    body: () => ({}),
    ok: 415,
    foreign: hidden,
  },
  'POST /v1/contact-lists/:id/imports/url': {
    service: 'scheduler',
    path: (r) => `${listPath(r)}/imports/url`,
    // Loopback, as the audience's: accepted, then failed by the fetcher's SSRF guard.
    body: () => ({ url: 'http://127.0.0.1:9/list.csv' }),
    ok: 202,
    foreign: hidden,
  },
  // After every use of the list; its URL import must have ended (a running one refuses the delete).
  'DELETE /v1/contact-lists/:id': {
    service: 'scheduler',
    path: listPath,
    before: (stack) => stack.listImportsEnded(),
    ok: 204,
    foreign: hidden,
  },
  'PATCH /v1/credentials/:id': {
    service: 'scheduler',
    path: (r) => `/v1/credentials/${r.credentialId}`,
    body: () => ({ name: 'renamed' }),
    ok: 200,
    foreign: hidden,
  },
  'POST /v1/credentials': {
    service: 'scheduler',
    path: () => '/v1/credentials',
    body: () => ({
      name: 'sim2',
      provider: 'simulator',
      channel: 'sms',
      secret: 's',
      rateCeilingPerSec: 10,
      rateFloorPerSec: 1,
    }),
    ok: 201,
    foreign: own,
  },
  'POST /v1/dead-letters/replay': {
    service: 'scheduler',
    path: () => '/v1/dead-letters/replay',
    body: (r) => ({ ids: [r.deadLetterId] }),
    ok: 200,
    foreign: hidden,
  },
  'POST /v1/campaigns/:campaignId/runs/:runId/status-refresh': {
    service: 'scheduler',
    path: (r) => `${runPath(r)}/status-refresh`,
    ok: 202,
    foreign: hidden,
  },
  'POST /v1/campaigns/:campaignId/runs/:runId/:action': {
    service: 'scheduler',
    path: (r) => `${runPath(r)}/cancel`,
    ok: 200,
    foreign: hidden,
  },
  'POST /v1/campaigns/:campaignId/:action': {
    service: 'scheduler',
    path: (r) => `${campaignPath(r)}/stop`,
    ok: 200,
    foreign: hidden,
  },
  'PATCH /v1/subscribers/:id': {
    service: 'dispatcher',
    path: subscriberPath,
    body: () => ({ eventTypes: ['message.status', 'message.inbound'] }),
    ok: 200,
    foreign: hidden,
  },
  'POST /v1/subscribers/:id/deliveries/:deliveryId/replay': {
    service: 'dispatcher',
    path: (r) => `${subscriberPath(r)}/deliveries/${r.deliveryId}/replay`,
    ok: 202,
    foreign: hidden,
  },
  'POST /v1/subscribers/:id/replay': {
    service: 'dispatcher',
    path: (r) => `${subscriberPath(r)}/replay`,
    body: () => ({ since: '2000-01-01T00:00:00Z' }),
    ok: 202,
    foreign: hidden,
  },
  'POST /v1/subscribers/:id/resurrect': {
    service: 'dispatcher',
    path: (r) => `${subscriberPath(r)}/resurrect`,
    before: async (stack, r) => {
      await stack.ds.query(
        `UPDATE subscribers SET state = 'DEAD', dead_since = UTC_TIMESTAMP(3) WHERE id = ?`,
        [r.subscriberId],
      );
    },
    ok: 202,
    foreign: hidden,
  },
  'POST /v1/subscribers/:id/rotate-secret': {
    service: 'dispatcher',
    path: (r) => `${subscriberPath(r)}/rotate-secret`,
    ok: 200,
    foreign: hidden,
  },
  'POST /v1/subscribers': {
    service: 'dispatcher',
    path: () => '/v1/subscribers',
    // A public address, given as one (no name to resolve); nothing is ever sent to it here.
    body: () => ({ url: 'https://93.184.215.14/hook', eventTypes: ['message.status'] }),
    ok: 201,
    foreign: own,
  },
  // Another address than A's opt-out: B's own PUT answers B's entry, which must not look like a leak.
  'PUT /v1/opt-outs/:channel/:address': {
    service: 'scheduler',
    path: () => `/v1/opt-outs/sms/${encodeURIComponent('+4915100000078')}`,
    ok: 200,
    foreign: own,
  },
  'POST /v1/opt-outs/import': {
    service: 'scheduler',
    path: () => '/v1/opt-outs/import',
    body: () => ({}),
    ok: 415,
    foreign: own,
  },
  'DELETE /v1/opt-outs/:channel/:address': {
    service: 'scheduler',
    path: (r) => `/v1/opt-outs/sms/${encodeURIComponent(r.optOutAddress)}`,
    ok: 204,
    foreign: hidden,
  },
  // Operator-only: tenant B's key, as every tenant key, lacks credits:admin.
  'POST /v1/credits/top-ups': {
    service: 'scheduler',
    path: () => '/v1/credits/top-ups',
    body: () => ({ channel: 'sms', amount: 100, reference: 'matrix-top-up' }),
    ok: 200,
    foreign: { kind: 'refused', status: 403 },
    operatorOnly: true,
  },
  'PUT /v1/credits/prices/:channel': {
    service: 'scheduler',
    path: () => '/v1/credits/prices/sms',
    body: () => ({ price: 1 }),
    ok: 200,
    foreign: { kind: 'refused', status: 403 },
    operatorOnly: true,
  },
  'PUT /v1/credits/quotas': {
    service: 'scheduler',
    path: () => '/v1/credits/quotas',
    body: () => ({ dailyLimit: 1_000 }),
    ok: 200,
    foreign: { kind: 'refused', status: 403 },
    operatorOnly: true,
  },
  'POST /v1/api-keys': {
    service: 'scheduler',
    path: () => '/v1/api-keys',
    body: () => ({ name: 'another' }),
    ok: 201,
    foreign: own,
  },
  'DELETE /v1/api-keys/:id': {
    service: 'scheduler',
    path: (r) => `/v1/api-keys/${r.apiKeyId}`,
    ok: 200,
    foreign: hidden,
  },
  'DELETE /v1/subscribers/:id': { service: 'dispatcher', path: subscriberPath, ok: 204, foreign: hidden },
};

function changed(before: Snapshot, after: Snapshot): string[] {
  const diffs: string[] = [];
  for (const [table, sum] of Object.entries(after.tables))
    if (before.tables[table] !== sum) diffs.push(`table ${table}`);
  for (const [partition, high] of Object.entries(after.offsets)) {
    if (before.offsets[partition] !== high) diffs.push(`topic ${partition}`);
  }
  return diffs;
}

/** One call of a route's case: a live stream's through streamCall (its first event), others as JSON. */
function callRoute(
  stack: AccessStack,
  spec: RouteCase,
  method: string,
  path: string,
  body: unknown,
  key: string | undefined,
): Promise<JsonAnswer> {
  return spec.stream === true
    ? stack.streamCall(path, key)
    : stack.call(spec.service, method, path, body, key);
}

/**
 * Issue 26's acceptance matrix: every scoped route of the campaign-scheduler and the webhook-dispatcher,
 * tried with no key, with tenant B's key on tenant A's resources, with a tenant-A key lacking the route's
 * scope, and with the right key. Refused calls change nothing in the database or on Kafka.
 */
describe('access matrix (scheduler and dispatcher processes)', () => {
  const stack = new AccessStack();
  let receiver: Server;
  let resources: Resources;

  beforeAll(async () => {
    receiver = createServer((_request, response) => response.writeHead(204).end());
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    await stack.start();
    resources = await seedTenantA(stack, `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`);
  });

  afterAll(async () => {
    await stack.stop();
    await new Promise((resolve) => receiver?.close(resolve));
  });

  it('covers every scoped and authenticated route the services registered, and nothing else', () => {
    const logged = stack.loggedRoutes().map((r) => r.route);
    expect([...logged].sort()).toEqual(Object.keys(ROUTES).sort());
  });

  it('refuses what it must, exactly, and lets no tenant read or change another', async () => {
    const scopes = new Map(stack.loggedRoutes().map((r) => [r.route, r.scope as Scope]));
    const failures: string[] = [];
    let crossTenant = 0;
    // Every refusal first, while nothing moves: a refused call must leave every table and topic as it was.
    for (const [route, spec] of Object.entries(ROUTES)) {
      const method = route.split(' ')[0] as string;
      const path = spec.path(resources);
      const body = spec.body?.(resources);
      const attempt = async (
        label: string,
        key: string | undefined,
        status: number,
        code?: string,
      ): Promise<void> => {
        const before = await stack.snapshot();
        const answer = await callRoute(stack, spec, method, path, body, key);
        const diffs = changed(before, await stack.snapshot());
        const gotCode = (answer.body['error'] as { code?: string } | undefined)?.code;
        if (answer.status !== status || (code !== undefined && gotCode !== code)) {
          failures.push(
            `${route} ${label}: ${answer.status} ${gotCode ?? ''}, expected ${status} ${code ?? ''}`,
          );
        }
        if (diffs.length > 0) failures.push(`${route} ${label} changed ${diffs.join(', ')}`);
        if (label === 'tenant B' && (diffs.length > 0 || answer.status < 300)) crossTenant += 1;
      };
      await attempt('no key', undefined, 401, AuthErrorCode.Missing);
      const scope = scopes.get(route);
      // `authenticated` routes need a credential but no scope: no key is refused, every key is not.
      if (scope !== undefined && (scope as string) !== 'authenticated')
        await attempt('without scope', await stack.keyWithout(scope), 403, AuthErrorCode.ScopeMissing);
      if (spec.foreign.kind === 'hidden') await attempt('tenant B', stack.keyB, 404);
      if (spec.foreign.kind === 'refused') await attempt('tenant B', stack.keyB, spec.foreign.status);
      if (spec.foreign.kind === 'own') {
        // Lists and creates answer B with B's own rows: none of A's ids may appear, and creates land in B.
        const answer = await callRoute(stack, spec, method, path, body, stack.keyB);
        const leaked = Object.values(resources).filter((id) => answer.text.includes(`"${id}"`));
        if (
          leaked.length > 0 ||
          (answer.body['tenantId'] !== undefined && answer.body['tenantId'] !== TENANT_B)
        ) {
          crossTenant += 1;
          failures.push(
            `${route} tenant B saw ${leaked.join(', ')} (tenant ${String(answer.body['tenantId'])})`,
          );
        }
      }
    }
    // Then tenant A's own calls, in the table's order.
    for (const [route, spec] of Object.entries(ROUTES)) {
      await spec.before?.(stack, resources);
      const ownMethod = route.split(' ')[0] as string;
      const own =
        spec.operatorOnly === true
          ? await stack.call(
              spec.service,
              ownMethod,
              spec.path(resources),
              spec.body?.(resources),
              TEST_OPERATOR_KEY,
              {
                [TENANT_HEADER]: TENANT_A,
              },
            )
          : await callRoute(stack, spec, ownMethod, spec.path(resources), spec.body?.(resources), stack.keyA);
      if (own.status !== spec.ok)
        failures.push(`${route} tenant A: ${own.status} ${own.text}, expected ${spec.ok}`);
    }
    process.stdout.write(
      `access matrix: ${Object.keys(ROUTES).length} routes, cross-tenant reads and changes: ${crossTenant}\n`,
    );
    expect(failures).toEqual([]);
    expect(crossTenant).toBe(0);
  });
});
