import type { IncomingHttpHeaders } from 'node:http';
import { Injectable, type OnApplicationShutdown } from '@nestjs/common';
import type { Provider } from '@ums/contracts';
import { ProviderEndpointPolicy } from '@ums/domain';
import { publicOnlyConnector } from '@ums/platform';
import { Pool } from 'undici';
import type { ProviderEndpoint } from './provider-adapter';
import { ProvidersConfig } from './providers.config';
import { ProvidersMetrics } from './providers.metrics';

/** A provider's HTTP answer, its body read as text (cut at PROVIDER_MAX_RESPONSE_BYTES). */
export interface ProviderResponse {
  readonly status: number;
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
}

/**
 * POSTs to providers through one undici Pool per origin: keep-alive connections shared by every
 * credential of that origin, no redirects (a redirected send is an error, not a second request),
 * header/body and connect timeouts. Throws undici's errors (with their `code`) when no answer
 * came back; adapters turn those into outcomes. Never logs: headers carry the secrets. An origin
 * that no enabled provider's allowlist names (the credential loader refuses those before any
 * request; this is the second line) connects through the SSRF guard: public addresses only, else
 * ADDRESS_NOT_PUBLIC without a connection.
 */
@Injectable()
export class ProviderHttpClient implements OnApplicationShutdown {
  private readonly pools = new Map<string, Pool>();

  constructor(
    private readonly config: ProvidersConfig,
    private readonly metrics: ProvidersMetrics,
    private readonly endpoints: ProviderEndpointPolicy,
  ) {}

  post(
    provider: Provider,
    endpoint: ProviderEndpoint,
    path: string,
    headers: Readonly<Record<string, string>>,
    body: string,
    signal?: AbortSignal,
  ): Promise<ProviderResponse> {
    return this.request(provider, endpoint, { method: 'POST', path, headers, body, signal });
  }

  /** A GET (status lookups), through the same pools, timeouts and guard as `post`. */
  get(
    provider: Provider,
    endpoint: ProviderEndpoint,
    path: string,
    headers: Readonly<Record<string, string>>,
    signal?: AbortSignal,
  ): Promise<ProviderResponse> {
    return this.request(provider, endpoint, { method: 'GET', path, headers, signal });
  }

  private async request(
    provider: Provider,
    endpoint: ProviderEndpoint,
    call: {
      readonly method: 'GET' | 'POST';
      readonly path: string;
      readonly headers: Readonly<Record<string, string>>;
      readonly body?: string;
      readonly signal: AbortSignal | undefined;
    },
  ): Promise<ProviderResponse> {
    const started = performance.now();
    try {
      const response = await this.pool(endpoint.origin).request({
        method: call.method,
        path: `${endpoint.basePath}${call.path}`,
        headers: call.headers,
        body: call.body,
        signal: call.signal,
      });
      const text = await response.body.text();
      this.metrics.requests.inc({ provider, result: `${Math.floor(response.statusCode / 100)}xx` });
      return { status: response.statusCode, headers: response.headers, body: text };
    } catch (error: unknown) {
      this.metrics.requests.inc({ provider, result: 'transport' });
      throw error;
    } finally {
      this.metrics.duration.observe({ provider }, (performance.now() - started) / 1000);
    }
  }

  async onApplicationShutdown(): Promise<void> {
    const pools = [...this.pools.values()];
    this.pools.clear();
    await Promise.all(pools.map((pool) => pool.close()));
  }

  private pool(origin: string): Pool {
    let pool = this.pools.get(origin);
    if (pool === undefined) {
      pool = new Pool(origin, {
        connections: this.config.PROVIDER_HTTP_CONNECTIONS,
        pipelining: 1,
        headersTimeout: this.config.PROVIDER_HTTP_TIMEOUT_MS,
        bodyTimeout: this.config.PROVIDER_HTTP_TIMEOUT_MS,
        maxResponseSize: this.config.PROVIDER_MAX_RESPONSE_BYTES,
        connect: this.endpoints.trustsOrigin(origin)
          ? { timeout: this.config.PROVIDER_CONNECT_TIMEOUT_MS }
          : publicOnlyConnector(this.config.PROVIDER_CONNECT_TIMEOUT_MS),
      });
      this.pools.set(origin, pool);
    }
    return pool;
  }
}
