import { Injectable } from '@nestjs/common';
import { MetricsRegistry } from '@ums/platform';
import { Gauge } from 'prom-client';

/** Metrics of the subscriber directory. */
@Injectable()
export class SubscribersMetrics {
  /** Subscribers this replica cannot sign for: their current secret does not open with SECRETS_KEYS. */
  readonly secretUnreadable: Gauge;

  constructor(registry: MetricsRegistry) {
    this.secretUnreadable = new Gauge({
      name: 'ums_webhook_subscribers_secret_unreadable',
      help: 'Subscribers whose secret this replica cannot open (none of SECRETS_KEYS opens it); nothing is sent to them',
      registers: [registry],
    });
  }
}
