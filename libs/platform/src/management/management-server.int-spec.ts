import 'reflect-metadata';
import { Counter } from 'prom-client';
import { HttpConfig } from '../config/common.config';
import { loadConfig } from '../config/config-loader';
import { HealthRegistry } from '../health/health-registry';
import { MetricsRegistry } from '../metrics/metrics-registry';
import { ManagementServer } from './management-server';

/** The management listener in process, on a real loopback port (0: a free one). */
describe('ManagementServer', () => {
  const http = loadConfig(HttpConfig, { HTTP_PORT: '0', MANAGEMENT_PORT: '0', HTTP_HOST: '127.0.0.1' });

  const start = async (): Promise<{
    server: ManagementServer;
    url: string;
    health: HealthRegistry;
    metrics: MetricsRegistry;
  }> => {
    const health = new HealthRegistry();
    const metrics = new MetricsRegistry('management-test');
    const server = new ManagementServer(http, health, metrics);
    return { server, url: await server.listen(), health, metrics };
  };

  it('answers readiness from the registered checks, naming the failing one', async () => {
    const { server, url, health } = await start();
    try {
      let redisUp = true;
      health.register('redis', () => ({ ok: redisUp, detail: redisUp ? undefined : 'connection refused' }));
      expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      const up = await fetch(`${url}/health/ready`);
      expect([up.status, await up.json()]).toEqual([200, { status: 'ok', checks: { redis: { ok: true } } }]);
      redisUp = false;
      const down = await fetch(`${url}/health/ready?verbose=1`);
      expect([down.status, await down.json()]).toEqual([
        503,
        { status: 'unavailable', checks: { redis: { ok: false, detail: 'connection refused' } } },
      ]);
      const head = await fetch(`${url}/health/live`, { method: 'HEAD' });
      expect([head.status, await head.text()]).toEqual([200, '']);
    } finally {
      await server.onApplicationShutdown();
    }
  });

  it("scrapes the service's own registry", async () => {
    const { server, url, metrics } = await start();
    try {
      new Counter({ name: 'ums_management_test_total', help: 'test', registers: [metrics] }).inc(3);
      const text = await (await fetch(`${url}/metrics`)).text();
      expect(text).toContain('ums_management_test_total{service="management-test"} 3');
    } finally {
      await server.onApplicationShutdown();
    }
  });

  it('turns not ready once the drain begins, and closes when the application shuts down', async () => {
    const { server, url } = await start();
    expect((await fetch(`${url}/health/ready`)).status).toBe(200);
    server.onModuleDestroy();
    const draining = await fetch(`${url}/health/ready`);
    expect([draining.status, await draining.json()]).toEqual([
      503,
      { status: 'unavailable', checks: { shutdown: { ok: false, detail: 'draining' } } },
    ]);
    expect((await fetch(`${url}/health/live`)).status).toBe(200);
    await server.onApplicationShutdown();
    await expect(fetch(`${url}/health/live`)).rejects.toThrow();
  });

  it('refuses to start on a port already taken', async () => {
    const { server, url } = await start();
    try {
      const port = Number(new URL(url).port);
      const taken = loadConfig(HttpConfig, {
        HTTP_PORT: '0',
        MANAGEMENT_PORT: String(port),
        HTTP_HOST: '127.0.0.1',
      });
      const second = new ManagementServer(taken, new HealthRegistry(), new MetricsRegistry('second'));
      await expect(second.listen()).rejects.toThrow(/EADDRINUSE/);
    } finally {
      await server.onApplicationShutdown();
    }
  });
});
