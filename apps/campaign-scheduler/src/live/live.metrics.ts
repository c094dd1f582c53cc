import { Injectable } from '@nestjs/common';
import { MetricsRegistry } from '@ums/platform';
import { Counter, Gauge } from 'prom-client';
import type { LiveTopicKind } from './live-hub';

/** Where the gauges are read from when metrics are scraped. */
export interface LiveGaugeSource {
  readonly connections: () => number;
  readonly watchedTopics: (kind: LiveTopicKind) => number;
  readonly kinds: readonly LiveTopicKind[];
}

/** The live streams of one process: what they hold open and what they cost. */
@Injectable()
export class LiveMetrics {
  readonly connections: Gauge;
  readonly watchedTopics: Gauge<'topic_kind'>;
  readonly loads: Counter<'topic_kind'>;
  readonly loadErrors: Counter<'topic_kind'>;
  readonly refused: Counter<'code'>;
  readonly framesSkipped: Counter;
  private source: LiveGaugeSource | undefined;

  constructor(registry: MetricsRegistry) {
    const registers = [registry];
    // The gauges are read at each scrape from the live service (see observe), so they never lag behind.
    this.connections = new Gauge({
      name: 'ums_live_connections',
      help: 'Live streams (server-sent events) this process serves now',
      registers,
      collect: () => this.connections.set(this.source?.connections() ?? 0),
    });
    this.watchedTopics = new Gauge({
      name: 'ums_live_watched_topics',
      help: 'Topics (campaign lists, runs) with at least one live stream: each is loaded once a second',
      labelNames: ['topic_kind'],
      registers,
      collect: () => {
        for (const kind of this.source?.kinds ?? []) {
          this.watchedTopics.set({ topic_kind: kind }, this.source?.watchedTopics(kind) ?? 0);
        }
      },
    });
    this.loads = new Counter({
      name: 'ums_live_topic_loads_total',
      help: 'Loads of live topics from MySQL: one per watched topic and second, whatever the number of streams',
      labelNames: ['topic_kind'],
      registers,
    });
    this.loadErrors = new Counter({
      name: 'ums_live_topic_load_errors_total',
      help: 'Loads of live topics that failed (the next second tries again; the streams stay open)',
      labelNames: ['topic_kind'],
      registers,
    });
    this.refused = new Counter({
      name: 'ums_live_refused_total',
      help: 'Live streams refused with 429, by code (the process limit, or the principal limit)',
      labelNames: ['code'],
      registers,
    });
    this.framesSkipped = new Counter({
      name: 'ums_live_frames_skipped_total',
      help: 'Frames not written to a stream whose client was not reading (its socket buffer full)',
      registers,
    });
  }

  /** The live service's counts, read by the gauges at each scrape. */
  observe(source: LiveGaugeSource): void {
    this.source = source;
  }
}
