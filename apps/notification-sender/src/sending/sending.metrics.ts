import { Injectable } from '@nestjs/common';
import { MetricsRegistry } from '@ums/platform';
import type { SendLane } from '@ums/contracts';
import { Counter, Histogram } from 'prom-client';

/** What happened to the messages this process was handed, and how long a batch took. */
export type MessageOutcomeLabel =
  'sent' | 'failed' | 'unknown' | 'retried' | 'exhausted' | 'held' | 'skipped' | 'opted_out';

@Injectable()
export class SendingMetrics {
  readonly messages: Counter<'lane' | 'outcome'>;
  readonly batchSeconds: Histogram<'lane'>;
  readonly statusRepublished: Counter;
  readonly claimContended: Counter;
  readonly grantsRetaken: Counter;
  readonly claimsReleased: Counter;
  readonly claimsLost: Counter;

  constructor(registry: MetricsRegistry) {
    const registers = [registry];
    this.messages = new Counter({
      name: 'ums_sender_messages_total',
      help: 'Messages handled, by lane and outcome (held: run paused or stopped; skipped: not PENDING, i.e. a copy already handled; opted_out: recipient opted out after the row was created, SKIPPED)',
      labelNames: ['lane', 'outcome'],
      registers,
    });
    this.batchSeconds = new Histogram({
      name: 'ums_sender_batch_seconds',
      help: 'Time from a batch being handed to the sender until every message of it is recorded (rate-limit waits included)',
      labelNames: ['lane'],
      buckets: [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60],
      registers,
    });
    this.statusRepublished = new Counter({
      name: 'ums_sender_status_republished_total',
      help: 'Status events published again for messages a redelivered batch found already settled',
      registers,
    });
    this.claimContended = new Counter({
      name: 'ums_sender_claim_contended_total',
      help: 'PENDING messages a claim found locked by another transaction, offered again on the first retry tier',
      registers,
    });
    this.grantsRetaken = new Counter({
      name: 'ums_sender_grants_retaken_total',
      help: 'Tokens taken again because their grant aged before the messages could go (slow claim or event loop)',
      registers,
    });
    this.claimsReleased = new Counter({
      name: 'ums_sender_claims_released_total',
      help: 'Claimed messages given back to PENDING unsent because something failed before their provider call',
      registers,
    });
    this.claimsLost = new Counter({
      name: 'ums_sender_claims_lost_total',
      help: 'Claimed messages found expired when their claim was refreshed before the provider call (not sent)',
      registers,
    });
  }

  /** Counts `n` messages of a lane with this outcome (nothing when none). */
  count(lane: SendLane, outcome: MessageOutcomeLabel, n: number): void {
    if (n > 0) this.messages.inc({ lane, outcome }, n);
  }
}
