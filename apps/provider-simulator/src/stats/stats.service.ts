import { Injectable } from '@nestjs/common';
import { SlidingWindowCounter } from '@ums/domain';
import { CredentialsService } from '../credentials/credentials.service';
import type { SimulatedCredential } from '../credentials/simulated-credential';
import {
  acceptedOf,
  attemptsOf,
  CredentialStats,
  DUPLICATE_IDS_KEPT,
  SEND_OUTCOMES,
  type SendOutcome,
} from './credential-stats';
import { PerSecondSeries } from './per-second-series';
import { StatsConfig } from './stats.config';
import { StatsMetrics } from './stats.metrics';

const METRIC_OUTCOME: Readonly<Record<SendOutcome, string>> = {
  accepted: 'accepted',
  rejectedPermanent: 'rejected_permanent',
  throttled: 'throttled',
  errors5xx: 'error_5xx',
  timeouts: 'timeout',
  authFailures: 'auth_failed',
  invalidRequests: 'invalid',
};

const PER_SECOND_KIND = {
  accepted: 'accepted',
  rejectedPermanent: 'rejected',
  throttled: 'throttled',
  errors5xx: 'errors',
  timeouts: 'errors',
  authFailures: 'rejected',
  invalidRequests: 'rejected',
} as const;

export interface SendCounts {
  readonly messageId: string;
  readonly accepted: number;
  readonly attempts: number;
  readonly credentials: { credentialId: string; accepted: number; attempts: number }[];
}

/**
 * Counts what the simulator did, per credential and in total: outcomes, sends per message id
 * (so tests can prove no message was sent twice), the busiest 1-second window, the last two
 * minutes second by second. All in memory; POST /_sim/reset starts over.
 */
@Injectable()
export class StatsService {
  private readonly byCredential = new Map<string, CredentialStats>();
  private readonly allWindow = new SlidingWindowCounter(1000);
  private readonly allPerSecond = new PerSecondSeries(120);
  private trackedIds = 0;
  private unroutable = 0;
  private since = new Date();

  constructor(
    private readonly config: StatsConfig,
    private readonly metrics: StatsMetrics,
    credentials: CredentialsService,
  ) {
    credentials.onRemoved((id) => this.drop(id));
    metrics.readTrackedIdsFrom(() => this.trackedIds);
  }

  of(credential: SimulatedCredential): CredentialStats {
    let stats = this.byCredential.get(credential.id);
    if (stats === undefined) {
      stats = new CredentialStats(credential.id);
      this.byCredential.set(credential.id, stats);
    }
    return stats;
  }

  /** Sends granted by capacity are recorded in the credential's window by the caller (take). */
  count(
    credential: SimulatedCredential,
    stats: CredentialStats,
    outcome: SendOutcome,
    n: number,
    now: number,
  ): void {
    if (n <= 0) return;
    stats.counts[outcome] += n;
    stats.perSecond.add(now, PER_SECOND_KIND[outcome], n);
    this.allPerSecond.add(now, PER_SECOND_KIND[outcome], n);
    if (outcome === 'accepted') this.allWindow.add(now, n);
    this.metrics.sends.inc(
      { credential_id: credential.id, provider: credential.provider, outcome: METRIC_OUTCOME[outcome] },
      n,
    );
  }

  /** Per message id: an accepted send. */
  trackAccepted(stats: CredentialStats, messageId: string | undefined): void {
    const tracking =
      messageId === undefined ? 'untracked' : stats.acceptMessage(messageId, this.mayTrackNew());
    if (tracking === 'new') this.trackedIds++;
    else if (tracking === 'untracked') stats.untrackedAccepts++;
  }

  /** Per message id: a request for it that was not accepted. */
  trackAttempt(stats: CredentialStats, messageId: string | undefined): void {
    if (messageId !== undefined && stats.attemptMessage(messageId, this.mayTrackNew()) === 'new') {
      this.trackedIds++;
    }
  }

  noteUnroutable(): void {
    this.unroutable++;
  }

  snapshot(credentialId: string | undefined, now: number): Record<string, unknown> {
    if (credentialId !== undefined) {
      const stats = this.byCredential.get(credentialId) ?? new CredentialStats(credentialId);
      return {
        credentialId,
        since: this.since.toISOString(),
        ...this.describe([stats]),
        maxPerSecond: stats.window.max,
        perSecond: stats.perSecond.snapshot(now),
      };
    }
    return {
      since: this.since.toISOString(),
      ...this.describe([...this.byCredential.values()]),
      unroutable: this.unroutable,
      maxPerSecond: this.allWindow.max,
      perSecond: this.allPerSecond.snapshot(now),
      credentials: [...this.byCredential.keys()],
    };
  }

  sends(messageId: string): SendCounts {
    const credentials = [];
    let accepted = 0;
    let attempts = 0;
    for (const stats of this.byCredential.values()) {
      const packed = stats.messages.get(messageId);
      if (packed === undefined) continue;
      credentials.push({
        credentialId: stats.credentialId,
        accepted: acceptedOf(packed),
        attempts: attemptsOf(packed),
      });
      accepted += acceptedOf(packed);
      attempts += attemptsOf(packed);
    }
    return { messageId, accepted, attempts, credentials };
  }

  reset(credentialId: string | undefined): void {
    if (credentialId !== undefined) {
      this.byCredential.get(credentialId)?.reset();
    } else {
      for (const stats of this.byCredential.values()) stats.reset();
      this.allWindow.reset();
      this.allPerSecond.reset();
      this.unroutable = 0;
      this.since = new Date();
    }
    this.retally();
  }

  private drop(credentialId: string): void {
    this.byCredential.delete(credentialId);
    this.retally();
  }

  private describe(all: readonly CredentialStats[]): Record<string, unknown> {
    const totals: Record<string, number> = {};
    for (const outcome of SEND_OUTCOMES) totals[outcome] = all.reduce((sum, s) => sum + s.counts[outcome], 0);
    return {
      ...totals,
      distinctMessages: all.reduce((sum, s) => sum + s.distinctMessages, 0),
      duplicates: all.reduce((sum, s) => sum + s.duplicates, 0),
      duplicateIds: all.flatMap((s) => s.duplicateIds).slice(0, DUPLICATE_IDS_KEPT),
      untrackedAccepts: all.reduce((sum, s) => sum + s.untrackedAccepts, 0),
      trackingSaturated: !this.mayTrackNew(),
    };
  }

  private mayTrackNew(): boolean {
    return this.trackedIds < this.config.SIMULATOR_MAX_TRACKED_MESSAGE_IDS;
  }

  private sizeOfAll(): number {
    let size = 0;
    for (const s of this.byCredential.values()) size += s.messages.size;
    return size;
  }

  private retally(): void {
    this.trackedIds = this.sizeOfAll();
  }
}
