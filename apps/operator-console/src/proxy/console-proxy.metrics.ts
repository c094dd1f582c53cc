import { Injectable } from '@nestjs/common';
import { MetricsRegistry } from '@ums/platform';
import { Counter } from 'prom-client';

/** What the console's proxy did with the browser's API calls. */
@Injectable()
export class ConsoleProxyMetrics {
  /** Calls the API answered, by API and status class (2xx, 3xx, 4xx, 5xx). */
  readonly answered: Counter<'api' | 'status'>;
  /** Calls the console answered itself because the API could not (UPSTREAM_* codes). */
  readonly failed: Counter<'api' | 'code'>;

  constructor(registry: MetricsRegistry) {
    const registers = [registry];
    this.answered = new Counter({
      name: 'ums_console_proxy_answers_total',
      help: 'API calls from the console passed on and answered by the API, by API and status class',
      labelNames: ['api', 'status'],
      registers,
    });
    this.failed = new Counter({
      name: 'ums_console_proxy_failures_total',
      help: 'API calls from the console that the API did not answer (UPSTREAM_UNAVAILABLE, UPSTREAM_FAILED, UPSTREAM_TIMEOUT)',
      labelNames: ['api', 'code'],
      registers,
    });
  }
}
