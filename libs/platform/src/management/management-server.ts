import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Injectable, Logger, type OnApplicationShutdown, type OnModuleDestroy } from '@nestjs/common';
import { HttpErrorCode } from '@ums/contracts';
import { HttpConfig, managementHost } from '../config/common.config';
import { HealthRegistry } from '../health/health-registry';
import type { ErrorBody } from '../http/error-response.filter';
import { MetricsRegistry } from '../metrics/metrics-registry';

interface Answer {
  readonly status: number;
  readonly contentType: string;
  readonly body: string;
  readonly headers?: Readonly<Record<string, string>>;
}

const JSON_TYPE = 'application/json; charset=utf-8';

const json = (status: number, body: unknown, headers?: Record<string, string>): Answer => ({
  status,
  contentType: JSON_TYPE,
  body: JSON.stringify(body),
  headers,
});

const error = (
  status: number,
  code: HttpErrorCode,
  message: string,
  headers?: Record<string, string>,
): Answer => json(status, { error: { code, message } } satisfies ErrorBody, headers);

/**
 * The management listener (MANAGEMENT_HOST:MANAGEMENT_PORT): `/health/live`, `/health/ready` and
 * `/metrics`, unauthenticated, for the orchestrator's probes and Prometheus only; the API listener does
 * not serve them (404 there). A plain node:http server reading the HealthRegistry and the service's
 * prom-client registry: no framework, no request logs, no middleware.
 *
 * bootstrapService starts it once the API listens, so a ready answer means the API accepts connections.
 * On shutdown readiness turns 503 as soon as the drain begins (Nest's module-destroy phase), and the
 * listener itself closes last (application-shutdown phase), so probes and scrapes see the whole drain.
 */
@Injectable()
export class ManagementServer implements OnModuleDestroy, OnApplicationShutdown {
  private readonly logger = new Logger('management');
  private server: Server | undefined;
  private draining = false;

  constructor(
    private readonly http: HttpConfig,
    private readonly health: HealthRegistry,
    private readonly metrics: MetricsRegistry,
  ) {}

  /** Starts listening; resolves with the URL it answers on (the real port when MANAGEMENT_PORT is 0). */
  async listen(): Promise<string> {
    if (this.server !== undefined) throw new Error('The management listener is already started');
    const server = createServer((req, res) => void this.serve(req, res));
    this.server = server;
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(this.http.MANAGEMENT_PORT, managementHost(this.http), () => {
        server.off('error', reject);
        resolve();
      });
    });
    const { address, family, port } = server.address() as AddressInfo;
    return `http://${family === 'IPv6' ? `[${address}]` : address}:${port}`;
  }

  onModuleDestroy(): void {
    this.draining = true;
  }

  async onApplicationShutdown(): Promise<void> {
    const server = this.server;
    if (server === undefined) return;
    this.server = undefined;
    await new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeIdleConnections();
    });
  }

  private async serve(req: IncomingMessage, res: ServerResponse): Promise<void> {
    let answer: Answer;
    try {
      answer = await this.answer(req.method ?? 'GET', (req.url ?? '/').split('?')[0] ?? '/');
    } catch (err: unknown) {
      this.logger.error({ err }, 'Management request failed');
      answer = error(500, HttpErrorCode.Unexpected, 'Unexpected error; see the service log');
    }
    res.writeHead(answer.status, {
      'content-type': answer.contentType,
      'content-length': Buffer.byteLength(answer.body),
      'cache-control': 'no-store',
      ...answer.headers,
    });
    res.end(req.method === 'HEAD' ? undefined : answer.body);
  }

  private async answer(method: string, path: string): Promise<Answer> {
    if (!MANAGEMENT_PATHS.includes(path))
      return error(404, HttpErrorCode.RouteNotFound, `Cannot ${method} ${path}`);
    if (method !== 'GET' && method !== 'HEAD')
      return error(405, HttpErrorCode.MethodNotAllowed, `${path} answers GET and HEAD only`, {
        allow: 'GET, HEAD',
      });
    // live: the process answers (the orchestrator restarts it when this fails).
    if (path === '/health/live') return json(200, { status: 'ok' });
    if (path === '/health/ready') return this.ready();
    return { status: 200, contentType: this.metrics.contentType, body: await this.metrics.metrics() };
  }

  /** Dependencies reachable, consumers running and no drain under way: traffic and rollouts wait for this. */
  private async ready(): Promise<Answer> {
    const { ok, checks } = await this.health.evaluate();
    const all = this.draining ? { ...checks, shutdown: { ok: false, detail: 'draining' } } : checks;
    const up = ok && !this.draining;
    return json(up ? 200 : 503, { status: up ? 'ok' : 'unavailable', checks: all });
  }
}

/** What the management listener serves; the API listener answers 404 on each of them. */
export const MANAGEMENT_PATHS: readonly string[] = ['/health/live', '/health/ready', '/metrics'];
