import { Injectable } from '@nestjs/common';
import { MetricsRegistry } from '@ums/platform';
import { Counter } from 'prom-client';

@Injectable()
export class StatusMetrics {
  readonly statuses: Counter<'outcome'>;
  readonly inbound: Counter<'outcome'>;

  constructor(registry: MetricsRegistry) {
    const registers = [registry];
    this.statuses = new Counter({
      name: 'ums_status_reports_total',
      help: 'Provider status reports consumed, by outcome (applied; duplicate, regression, terminal: absorbed by the forward-only rule; archived: a message past its retention, dropped; unknown: no such message, dead-lettered)',
      labelNames: ['outcome'],
      registers,
    });
    this.inbound = new Counter({
      name: 'ums_inbound_messages_total',
      help: 'Inbound messages consumed, by outcome (published, opt_out: also recorded as an opt-out, opt_in: an opt-out lifted by the reply, unknown_credential: dead-lettered)',
      labelNames: ['outcome'],
      registers,
    });
  }
}
