import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { connect } from 'node:net';
import { join } from 'node:path';
import { AllTopics, AuthErrorCode, GatewayErrorCode, HttpErrorCode, Scope } from '@ums/contracts';
import { createDataSource, ensureTopics, KafkaNames, runPendingMigrations } from '@ums/platform';
import {
  bearer,
  createTenantKey,
  createTestDatabase,
  freePort,
  jsonCall,
  serviceEnv,
  type ServiceProcess,
  startServiceProcess,
  sumMetric,
  TEST_OPERATOR_KEY,
  testKafka,
  waitUntil,
  workspaceRoot,
} from '@ums/testing';
import { CONTENT_SECURITY_POLICY } from '../security/security-headers';
import { HASHED_CACHE_CONTROL, REVALIDATE_CACHE_CONTROL } from '../web-assets/web-path';

jest.setTimeout(180_000);

const TENANT = 'console-e2e';

/**
 * A server-sent event stream read as the browser reads it (fetch), split into its complete `event:`
 * blocks as they arrive; `ended` settles when the stream ends or breaks.
 */
class EventBlocks {
  readonly events: string[] = [];
  readonly ended: Promise<'ended' | 'broken'>;

  constructor(body: ReadableStream<Uint8Array>) {
    this.ended = this.read(body);
  }

  private async read(body: ReadableStream<Uint8Array>): Promise<'ended' | 'broken'> {
    const reader = body.getReader();
    const decoder = new TextDecoder();
    let text = '';
    try {
      for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) {
        text += decoder.decode(chunk.value, { stream: true });
        const blocks = text.split('\n\n');
        text = blocks.pop() ?? '';
        this.events.push(...blocks.filter((block) => block.startsWith('event:')));
      }
      return 'ended';
    } catch {
      return 'broken';
    }
  }
}

/**
 * The operator console's server as production runs it (dist/, its own process) in front of a real
 * campaign-scheduler; its webhook-dispatcher URL names a port nothing listens on (a dispatcher down).
 */
describe('operator console (console process before a scheduler process)', () => {
  let database: Awaited<ReturnType<typeof createTestDatabase>>;
  let scheduler: ServiceProcess;
  let consoleServer: ServiceProcess;
  let key: string;

  beforeAll(async () => {
    database = await createTestDatabase('ums_console');
    const ds = createDataSource(database.settings);
    await ds.initialize();
    await runPendingMigrations(ds);
    await ds.destroy();
    const namespace = `t-${randomBytes(4).toString('hex')}`;
    await ensureTopics(testKafka(), AllTopics, 1, new KafkaNames(namespace));
    scheduler = await startServiceProcess({
      app: 'campaign-scheduler',
      env: serviceEnv(database.settings.database, namespace),
    });
    consoleServer = await startServiceProcess({
      app: 'operator-console',
      env: {
        CONSOLE_SCHEDULER_URL: scheduler.url,
        CONSOLE_DISPATCHER_URL: `http://127.0.0.1:${await freePort()}`,
        // Long enough that a drain waiting on an open stream would show as exit code 1, not pass by luck.
        SHUTDOWN_TIMEOUT_MS: '60000',
      },
    });
    key = await createTenantKey(scheduler.url, TENANT, [Scope.CampaignsRead, Scope.CampaignsWrite]);
  });

  afterAll(async () => {
    await consoleServer?.process.stop();
    await scheduler?.process.stop();
    await database?.drop();
  });

  const securityHeaders = (response: Response): Record<string, string | null> => ({
    csp: response.headers.get('content-security-policy'),
    frame: response.headers.get('x-frame-options'),
    sniff: response.headers.get('x-content-type-options'),
    referrer: response.headers.get('referrer-policy'),
  });
  const strict = { csp: CONTENT_SECURITY_POLICY, frame: 'DENY', sniff: 'nosniff', referrer: 'no-referrer' };

  it('serves the page for / and deep links, revalidated, with the security headers', async () => {
    const built = readFileSync(join(workspaceRoot(), 'dist/apps/operator-console/web/index.html'), 'utf8');
    for (const path of ['/', '/index.html', '/campaigns/cmp_1/runs/run_1']) {
      const response = await fetch(`${consoleServer.url}${path}`);
      expect([path, response.status, response.headers.get('content-type')]).toEqual([
        path,
        200,
        'text/html; charset=utf-8',
      ]);
      expect(response.headers.get('cache-control')).toBe(REVALIDATE_CACHE_CONTROL);
      expect(securityHeaders(response)).toEqual(strict);
      expect(await response.text()).toBe(built);
    }
    expect(CONTENT_SECURITY_POLICY).toContain("default-src 'self'");
    expect(CONTENT_SECURITY_POLICY).toContain("frame-ancestors 'none'");
    expect(CONTENT_SECURITY_POLICY).not.toContain('unsafe-inline');
  });

  it('serves the hashed bundles for a year, and answers the JSON 404 for anything else', async () => {
    const built = readFileSync(join(workspaceRoot(), 'dist/apps/operator-console/web/index.html'), 'utf8');
    const script = /src="(\/assets\/[^"]+\.js)"/.exec(built)?.[1] ?? '';
    const bundle = await fetch(`${consoleServer.url}${script}`);
    expect([bundle.status, bundle.headers.get('cache-control')]).toEqual([200, HASHED_CACHE_CONTROL]);
    expect(bundle.headers.get('content-type')).toMatch(/javascript/);
    for (const path of ['/assets/gone-0000.js', '/favicon-none.ico', '/api/other/v1/x', '/health/live']) {
      const response = await fetch(`${consoleServer.url}${path}`);
      const body = (await response.json()) as { error: { code: string } };
      expect([path, response.status, body.error.code]).toEqual([path, 404, HttpErrorCode.RouteNotFound]);
      expect(securityHeaders(response)).toEqual(strict);
    }
  });

  it("passes a call on with the caller's key, and the API's refusal as it answered", async () => {
    const me = await jsonCall(consoleServer.url, 'GET', '/api/scheduler/v1/whoami', undefined, key);
    expect(me.status).toBe(200);
    expect(me.body).toMatchObject({
      kind: 'api-key',
      tenantId: TENANT,
      scopes: ['campaigns:read', 'campaigns:write'],
    });
    const unkeyed = await jsonCall(consoleServer.url, 'GET', '/api/scheduler/v1/campaigns');
    expect([unkeyed.status, (unkeyed.body['error'] as { code: string }).code]).toEqual([
      401,
      AuthErrorCode.Missing,
    ]);
    // The operator names the tenant it acts for in X-Ums-Tenant: passed on.
    const operator = await jsonCall(
      consoleServer.url,
      'GET',
      '/api/scheduler/v1/whoami',
      undefined,
      TEST_OPERATOR_KEY,
      {
        'x-ums-tenant': TENANT,
      },
    );
    expect(operator.body).toMatchObject({ kind: 'operator', tenantId: TENANT });
    // A path that would leave the API's prefix once decoded is refused here, in the platform's shape.
    const escape = await jsonCall(
      consoleServer.url,
      'GET',
      '/api/scheduler/..%2f..%2fmetrics',
      undefined,
      key,
    );
    expect([escape.status, (escape.body['error'] as { code: string }).code]).toEqual([
      400,
      HttpErrorCode.ValidationFailed,
    ]);
  });

  it('passes bodies, uploads and the Idempotency-Key on: a repeated create answers the first campaign', async () => {
    const credential = await jsonCall(
      consoleServer.url,
      'POST',
      '/api/scheduler/v1/credentials',
      {
        name: 'sim',
        provider: 'simulator',
        channel: 'sms',
        secret: 's',
        rateCeilingPerSec: 10,
        rateFloorPerSec: 1,
      },
      await createTenantKey(scheduler.url, TENANT, [Scope.CredentialsWrite]),
    );
    expect(credential.status).toBe(201);
    const idempotencyKey = `console-${randomBytes(4).toString('hex')}`;
    const create = (): ReturnType<typeof jsonCall> =>
      jsonCall(
        consoleServer.url,
        'POST',
        '/api/scheduler/v1/campaigns',
        {
          name: 'through the console',
          channel: 'sms',
          credentialId: credential.body['id'],
          template: { text: 'Hi' },
          defaultCountry: 'DE',
          schedule: { kind: 'at', at: '2099-01-01T00:00:00Z' },
        },
        key,
        { 'idempotency-key': idempotencyKey },
      );
    const [first, again] = [await create(), await create()];
    expect([first.status, again.status]).toEqual([201, 201]);
    expect(again.body['id']).toBe(first.body['id']);
    const list = await jsonCall(consoleServer.url, 'GET', '/api/scheduler/v1/campaigns', undefined, key);
    expect((list.body['items'] as unknown[]).length).toBe(1);

    // A CSV upload (multipart) streams through as the browser sends it; the API reads and counts it.
    const form = new FormData();
    const csv = 'phone,first_name\n+4915100000001,Ada\n+4915100000002,Bo\nnot-a-phone,Cy\n';
    form.append('file', new Blob([csv], { type: 'text/csv' }), 'audience.csv');
    const upload = await fetch(
      `${consoleServer.url}/api/scheduler/v1/campaigns/${String(first.body['id'])}/audience/csv`,
      {
        method: 'POST',
        headers: bearer(key),
        body: form,
      },
    );
    expect(upload.status).toBeLessThan(300);
    expect(await upload.json()).toMatchObject({ rowsRead: 3, rowsAccepted: 2, rowsRejected: 1 });
  });

  /** The live campaigns stream of the test's tenant, through the console. */
  async function openLiveCampaigns(
    signal?: AbortSignal,
  ): Promise<{ response: Response; blocks: EventBlocks }> {
    const response = await fetch(`${consoleServer.url}/api/scheduler/v1/live/campaigns`, {
      headers: { ...bearer(key), accept: 'text/event-stream' },
      signal,
    });
    return { response, blocks: new EventBlocks(response.body as ReadableStream<Uint8Array>) };
  }

  it('passes a live stream on as it comes, marked unbuffered', async () => {
    const controller = new AbortController();
    const { response, blocks } = await openLiveCampaigns(controller.signal);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^text\/event-stream/);
    expect(response.headers.get('x-accel-buffering')).toBe('no');
    // The API's answer never ends: events arriving at all show the console does not hold them back.
    await waitUntil('two events through the console', () => blocks.events.length >= 2, { timeoutMs: 30_000 });
    const [event] = blocks.events;
    expect(event).toMatch(/^event: campaigns\ndata: \{/);
    expect(JSON.parse(event?.slice(event.indexOf('data: ') + 6) ?? '')).toMatchObject({
      campaigns: [expect.objectContaining({ name: 'through the console' })],
    });
    controller.abort();
    expect(await blocks.ended).toBe('broken');
  });

  it("answers the platform's error, never the API's address, when the API is down", async () => {
    const response = await fetch(`${consoleServer.url}/api/dispatcher/v1/subscribers`, {
      headers: bearer(key),
    });
    expect([response.status, response.headers.get('retry-after')]).toEqual([503, '1']);
    expect(securityHeaders(response)).toEqual(strict);
    const down = { text: await response.text() };
    expect(JSON.parse(down.text)).toEqual({
      error: {
        code: GatewayErrorCode.UpstreamUnavailable,
        message: 'The webhook-dispatcher API is not reachable from the console; retry later',
      },
    });
    expect(down.text).not.toContain('127.0.0.1');
    expect(
      await sumMetric([consoleServer.managementUrl], 'ums_console_proxy_failures_total', {
        api: 'webhook-dispatcher',
        code: GatewayErrorCode.UpstreamUnavailable,
      }),
    ).toBe(1);
  });

  it('cuts the streams it passes on when it stops, closes idle connections, and drains cleanly', async () => {
    const { blocks } = await openLiveCampaigns();
    await waitUntil('an event through the console', () => blocks.events.length >= 1, { timeoutMs: 30_000 });
    // A connection that has sent no request yet, as browsers open them ahead of use.
    const { port } = new URL(consoleServer.url);
    const preconnected = connect(Number(port), '127.0.0.1');
    await once(preconnected, 'connect');
    const preconnectionClosed = once(preconnected, 'close');
    expect(await consoleServer.process.stop()).toBe(0);
    await preconnectionClosed;
    expect(['ended', 'broken']).toContain(await blocks.ended);
    // The scheduler outlives it; a call to the stopped console gets no answer at all.
    expect((await jsonCall(scheduler.url, 'GET', '/v1/whoami', undefined, key)).status).toBe(200);
    await expect(fetch(`${consoleServer.url}/`)).rejects.toThrow();
  });
});
