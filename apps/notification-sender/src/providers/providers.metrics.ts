import { Injectable } from '@nestjs/common';
import { MetricsRegistry } from '@ums/platform';
import { Counter, Histogram } from 'prom-client';

/** Provider HTTP requests: how many, how they ended, how long they took. */
@Injectable()
export class ProvidersMetrics {
  /** `result`: the status class (2xx, 4xx, 5xx, ...) or `transport` when no answer came back. */
  readonly requests: Counter<'provider' | 'result'>;
  readonly duration: Histogram<'provider'>;
  readonly credentialLoadFailures: Counter<'code'>;

  constructor(registry: MetricsRegistry) {
    const registers = [registry];
    this.requests = new Counter({
      name: 'ums_provider_requests_total',
      help: 'HTTP requests to providers by result (status class, or transport for no answer)',
      labelNames: ['provider', 'result'],
      registers,
    });
    this.duration = new Histogram({
      name: 'ums_provider_request_duration_seconds',
      help: 'Time from sending a provider request to having read its answer',
      labelNames: ['provider'],
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      registers,
    });
    this.credentialLoadFailures = new Counter({
      name: 'ums_credential_load_failures_total',
      help: 'Credentials that could not be used (CREDENTIAL_INVALID, PROVIDER_DISABLED, ENDPOINT_NOT_ALLOWED or CREDENTIAL_UNAVAILABLE)',
      labelNames: ['code'],
      registers,
    });
  }
}
