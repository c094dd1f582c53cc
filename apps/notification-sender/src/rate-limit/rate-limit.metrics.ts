import { Injectable } from '@nestjs/common';
import { MetricsRegistry } from '@ums/platform';
import { Counter, Gauge, Histogram } from 'prom-client';

@Injectable()
export class RateLimitMetrics {
  readonly rate: Gauge<'credential'>;
  readonly tokensGranted: Counter<'credential' | 'lane'>;
  readonly tokensGivenBack: Counter<'credential' | 'lane'>;
  readonly congestionEvents: Counter<'credential' | 'kind'>;
  readonly rateChanges: Counter<'credential' | 'step'>;
  readonly stateReseeded: Counter<'credential'>;
  readonly waitSeconds: Histogram<'lane'>;
  readonly waiting: Gauge<'lane'>;
  readonly secondsFlushFailures: Counter;
  readonly secondsDropped: Counter;

  constructor(registry: MetricsRegistry) {
    const registers = [registry];
    this.rate = new Gauge({
      name: 'ums_rate_limit_rate',
      help: 'Current AIMD rate of a credential (messages/s), shared by every sender replica, as last seen here',
      labelNames: ['credential'],
      registers,
    });
    this.tokensGranted = new Counter({
      name: 'ums_rate_limit_tokens_granted_total',
      help: 'Tokens (messages) granted to this process, by lane (bulk, priority)',
      labelNames: ['credential', 'lane'],
      registers,
    });
    this.tokensGivenBack = new Counter({
      name: 'ums_rate_limit_tokens_given_back_total',
      help: 'Tokens granted to this process and given back unspent (their grant went stale before the messages could go)',
      labelNames: ['credential', 'lane'],
      registers,
    });
    this.congestionEvents = new Counter({
      name: 'ums_rate_limit_congestion_events_total',
      help: 'Congestion outcomes reported by this process (throttled: 429 or a throttling code; server_error: 5xx; timeout)',
      labelNames: ['credential', 'kind'],
      registers,
    });
    this.rateChanges = new Counter({
      name: 'ums_rate_limit_rate_changes_total',
      help: 'AIMD decisions this process applied (increase, decrease)',
      labelNames: ['credential', 'step'],
      registers,
    });
    this.stateReseeded = new Counter({
      name: 'ums_rate_limit_state_reseeded_total',
      help: 'Credentials whose Redis state was gone while in use (Redis restarted empty), created again at the floor',
      labelNames: ['credential'],
      registers,
    });
    this.waitSeconds = new Histogram({
      name: 'ums_rate_limit_wait_seconds',
      help: 'Time a caller waited for its first token',
      labelNames: ['lane'],
      buckets: [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
      registers,
    });
    this.waiting = new Gauge({
      name: 'ums_rate_limit_waiting',
      help: 'Callers of this process waiting for tokens',
      labelNames: ['lane'],
      registers,
    });
    this.secondsFlushFailures = new Counter({
      name: 'ums_rate_limit_seconds_flush_failures_total',
      help: 'Writes of the per-second rate-limiter figures (credential_rate_seconds) that failed; kept and retried',
      registers,
    });
    this.secondsDropped = new Counter({
      name: 'ums_rate_limit_seconds_dropped_total',
      help: 'Per-second rate-limiter rows (credential, second) never written: held past RATE_LIMIT_SECONDS_MAX_PENDING seconds, or unwritten at shutdown',
      registers,
    });
  }
}
