import { Injectable } from '@nestjs/common';
import { MetricsRegistry } from '@ums/platform';
import { Counter, Gauge } from 'prom-client';

@Injectable()
export class StatusRefreshMetrics {
  readonly lookups: Counter<'provider' | 'outcome'>;
  readonly settled: Counter<'to'>;
  readonly unsettled: Gauge<'state'>;

  constructor(registry: MetricsRegistry) {
    const registers = [registry];
    this.lookups = new Counter({
      name: 'ums_status_refresh_lookups_total',
      help: 'Messages looked up at their provider by the status refresh, by provider and answer (accepted, not_received, unknown; no_status_api, credential_unusable: not asked)',
      labelNames: ['provider', 'outcome'],
      registers,
    });
    this.settled = new Counter({
      name: 'ums_status_refresh_settled_total',
      help: 'Message rows the status refresh changed, by the state they went to (SENT, DELIVERED, READ, FAILED, NOT_RECEIVED: FAILED for a resend by an operator), and unchanged (asked, nothing new)',
      labelNames: ['to'],
      registers,
    });
    this.unsettled = new Gauge({
      name: 'ums_status_refresh_unsettled',
      help: 'Rows waiting for a status refresh at its last pass (capped at 100000 per state): UNKNOWN past STATUS_REFRESH_UNKNOWN_AFTER_MS, SENT without a callback not yet asked about',
      labelNames: ['state'],
      registers,
    });
  }
}
