import { Injectable } from '@nestjs/common';
import { MetricsRegistry } from '@ums/platform';
import { Counter } from 'prom-client';

/** Credits reserved and refunded by this sender, and messages held for lack of credit or quota. */
@Injectable()
export class CreditsMetrics {
  readonly reserved: Counter<'channel'>;
  readonly refunded: Counter<'channel'>;
  readonly holds: Counter<'reason'>;

  constructor(registry: MetricsRegistry) {
    const registers = [registry];
    this.reserved = new Counter({
      name: 'ums_credits_reserved_total',
      help: 'Credits reserved by claims (debited from tenant balances), by channel',
      labelNames: ['channel'],
      registers,
    });
    this.refunded = new Counter({
      name: 'ums_credits_refunded_total',
      help: 'Credits given back for claimed messages that were not sent, by channel',
      labelNames: ['channel'],
      registers,
    });
    this.holds = new Counter({
      name: 'ums_credit_holds_total',
      help: 'Messages not claimed (bulk: left PENDING, run paused) or failed (single sends) for lack of credits or quota, by reason',
      labelNames: ['reason'],
      registers,
    });
  }
}
