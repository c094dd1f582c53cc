import { Injectable } from '@nestjs/common';
import { MetricsRegistry } from '@ums/platform';
import { Counter, Gauge } from 'prom-client';

@Injectable()
export class MessageArchiveMetrics {
  readonly archived: Counter<'origin'>;
  readonly windows: Counter;
  readonly lag: Gauge;
  readonly pruned: Counter;
  readonly tickErrors: Counter;

  constructor(registry: MetricsRegistry) {
    const registers = [registry];
    this.archived = new Counter({
      name: 'ums_messages_archived_total',
      help: 'Messages moved from messages to messages_archive past MESSAGE_RETENTION_MS, by origin (run, single)',
      labelNames: ['origin'],
      registers,
    });
    this.windows = new Counter({
      name: 'ums_message_archive_windows_total',
      help: 'Archive windows (transactions) that moved messages',
      registers,
    });
    this.lag = new Gauge({
      name: 'ums_message_archive_lag_seconds',
      help: 'How far past MESSAGE_RETENTION_MS the oldest finished run still holding messages in the hot table is (0: none)',
      registers,
    });
    this.pruned = new Counter({
      name: 'ums_messages_archive_pruned_total',
      help: 'Archived messages deleted past MESSAGE_ARCHIVE_RETENTION_MS',
      registers,
    });
    this.tickErrors = new Counter({
      name: 'ums_message_archive_errors_total',
      help: 'Archiver ticks that failed (the next tick carries on where this one stopped)',
      registers,
    });
  }
}
