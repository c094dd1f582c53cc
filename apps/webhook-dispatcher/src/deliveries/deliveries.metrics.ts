import { Injectable } from '@nestjs/common';
import type { WebhookOutcomeLabel } from '@ums/domain';
import { MetricsRegistry } from '@ums/platform';
import { Counter, Gauge, Histogram } from 'prom-client';

/** The `outcome` label of ums_webhook_deliveries_total. */
export type DeliveryOutcomeLabel = WebhookOutcomeLabel;

@Injectable()
export class DeliveriesMetrics {
  readonly deliveries: Counter<'outcome'>;
  readonly latency: Histogram;
  readonly retries: Counter<'tier'>;
  readonly subscribers: Gauge<'state'>;
  readonly oldestUndeliveredSeconds: Gauge;
  readonly queued: Gauge;
  readonly pruned: Counter;
  readonly failureWindowErrors: Counter<'code'>;
  readonly failureWindowDeferred: Gauge;

  constructor(registry: MetricsRegistry) {
    const registers = [registry];
    this.deliveries = new Counter({
      name: 'ums_webhook_deliveries_total',
      help: 'Subscriber delivery attempts and decisions by outcome',
      labelNames: ['outcome'],
      registers,
    });
    this.latency = new Histogram({
      name: 'ums_webhook_delivery_seconds',
      help: 'Time from sending a delivery to its answer (or transport error)',
      buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      registers,
    });
    this.retries = new Counter({
      name: 'ums_webhook_retries_total',
      help: 'Deliveries sent to a retry tier, by tier topic',
      labelNames: ['tier'],
      registers,
    });
    this.subscribers = new Gauge({
      name: 'ums_webhook_subscribers',
      help: 'Subscribers by state (ALIVE, DEAD, DISABLED, REPLAYING)',
      labelNames: ['state'],
      registers,
    });
    this.oldestUndeliveredSeconds = new Gauge({
      name: 'ums_webhook_oldest_undelivered_seconds',
      help: 'Age of the oldest PENDING or RETRYING delivery (0 when none)',
      registers,
    });
    this.queued = new Gauge({
      name: 'ums_webhook_queued_deliveries',
      help: 'Deliveries waiting in this process for a free slot of their subscriber',
      registers,
    });
    this.pruned = new Counter({
      name: 'ums_webhook_deliveries_pruned_total',
      help: 'DELIVERED rows deleted by the retention pass (WEBHOOK_DELIVERED_RETENTION_MS)',
      registers,
    });
    this.failureWindowErrors = new Counter({
      name: 'ums_webhook_failure_window_errors_total',
      help: 'Write-backs whose failure-window update (Redis) failed; their results were written anyway',
      labelNames: ['code'],
      registers,
    });
    this.failureWindowDeferred = new Gauge({
      name: 'ums_webhook_failure_window_deferred',
      help: 'Failures kept in this process until Redis takes them; tombstones wait for them',
      registers,
    });
  }
}
