import { type ServiceProcess, startServiceProcess } from '@ums/testing';

interface ErrorAnswer {
  readonly error?: { readonly code?: string };
}

/**
 * A real service process (the provider simulator: no Kafka, MySQL or Redis to wait for) serves health
 * and metrics on its management port only; its API port refuses them like any unknown route.
 */
describe('management listener (real process)', () => {
  let service: ServiceProcess;

  beforeAll(async () => {
    service = await startServiceProcess({ app: 'provider-simulator', env: { LOG_LEVEL: 'warn' } });
  }, 90_000);

  afterAll(async () => {
    await service.process.stop();
  });

  it.each(['/metrics', '/health/ready', '/health/live'])(
    'refuses %s on the API port with 404',
    async (path) => {
      const answer = await fetch(`${service.url}${path}`);
      expect(answer.status).toBe(404);
      expect(((await answer.json()) as ErrorAnswer).error?.code).toBe('ROUTE_NOT_FOUND');
    },
  );

  it('serves readiness, liveness and the metrics on the management port', async () => {
    const ready = await fetch(`${service.managementUrl}/health/ready`);
    expect(ready.status).toBe(200);
    expect(await ready.json()).toEqual({ status: 'ok', checks: {} });
    const live = await fetch(`${service.managementUrl}/health/live`);
    expect([live.status, await live.json()]).toEqual([200, { status: 'ok' }]);
    const metrics = await fetch(`${service.managementUrl}/metrics`);
    expect(metrics.status).toBe(200);
    expect(metrics.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
    expect(await metrics.text()).toMatch(/^process_cpu_user_seconds_total\{service="provider-simulator"\} /m);
  });

  it('serves nothing else on the management port, and the API only on the API port', async () => {
    const api = await fetch(`${service.url}/_sim/stats`);
    expect(api.status).toBe(200);
    const notHere = await fetch(`${service.managementUrl}/_sim/stats`);
    expect(notHere.status).toBe(404);
    expect(((await notHere.json()) as ErrorAnswer).error?.code).toBe('ROUTE_NOT_FOUND');
    const post = await fetch(`${service.managementUrl}/metrics`, { method: 'POST' });
    expect([post.status, post.headers.get('allow')]).toEqual([405, 'GET, HEAD']);
    expect(((await post.json()) as ErrorAnswer).error?.code).toBe('METHOD_NOT_ALLOWED');
  });

  it('closes both listeners on SIGTERM and exits 0', async () => {
    expect(await service.process.stop()).toBe(0);
    await expect(fetch(`${service.managementUrl}/health/live`)).rejects.toThrow();
    await expect(fetch(`${service.url}/_sim/stats`)).rejects.toThrow();
  });
});
