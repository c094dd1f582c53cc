import { Injectable } from '@nestjs/common';
import type { Provider } from '@ums/contracts';
import { DataSource } from 'typeorm';
import type { StatusLookup } from '../providers/provider-adapter';
import type { StatusChange } from '../sending/status-change';
import { StatusEventsPublisher } from '../sending/status-events.publisher';
import { StatusUpdatesRepository } from '../status/status-updates.repository';
import { NotReceivedCredits } from './not-received-credits';
import { StatusRefreshLookups } from './status-refresh.lookups';
import { StatusRefreshMetrics } from './status-refresh.metrics';
import {
  addCounts,
  countSettled,
  noneSettled,
  type RefreshCandidate,
  type SettledCounts,
  settlementReports,
} from './status-refresh.plan';
import { StatusRefreshRepository } from './status-refresh.repository';

/** Reports applied per transaction. */
const SETTLE_CHUNK = 1_000;

/**
 * One round of a status refresh: asks each candidate's provider (grouped by credential,
 * StatusRefreshLookups) and settles the answers through the status path callbacks take
 * (StatusUpdatesRepository: a compare-and-set on the state read, forward only, counters moved and
 * events published in the same transaction), one transaction per 1000 rows, with the credits of rows
 * the provider never received given back in it.
 */
@Injectable()
export class StatusRefreshSettler {
  constructor(
    private readonly lookups: StatusRefreshLookups,
    private readonly statuses: StatusUpdatesRepository,
    private readonly publisher: StatusEventsPublisher,
    private readonly repository: StatusRefreshRepository,
    private readonly metrics: StatusRefreshMetrics,
    private readonly dataSource: DataSource,
    private readonly credits: NotReceivedCredits,
  ) {}

  /** The providers whose rows a refresh can settle. */
  get providers(): Provider[] {
    return this.lookups.providers;
  }

  async settle(candidates: readonly RefreshCandidate[]): Promise<SettledCounts> {
    const counts = noneSettled();
    const byCredential = new Map<string, RefreshCandidate[]>();
    for (const row of candidates) {
      const group = byCredential.get(row.credentialId);
      if (group === undefined) byCredential.set(row.credentialId, [row]);
      else group.push(row);
    }
    for (const [credentialId, rows] of byCredential) {
      const answered = await this.lookups.of(credentialId, rows);
      if (answered === undefined) {
        addCounts(counts, { ...noneSettled(), unresolved: rows.length });
        continue;
      }
      const byId = new Map(rows.map((row) => [row.id, row]));
      for (let start = 0; start < answered.lookups.length; start += SETTLE_CHUNK) {
        const chunk = answered.lookups.slice(start, start + SETTLE_CHUNK);
        addCounts(counts, await this.apply(answered.provider, byId, chunk));
      }
    }
    return counts;
  }

  /** One transaction: the chunk's reports applied as a compare-and-set, published, credits of unsent rows back. */
  private async apply(
    provider: Provider,
    byId: ReadonlyMap<string, RefreshCandidate>,
    lookups: readonly StatusLookup[],
  ): Promise<SettledCounts> {
    const named = await this.repository.namedProviderIds(
      this.dataSource,
      lookups.flatMap((l) =>
        l.kind === 'accepted' && l.providerMessageId !== null ? [l.providerMessageId] : [],
      ),
    );
    const idsOfOthers = new Set<string>();
    for (const lookup of lookups) {
      if (lookup.kind !== 'accepted' || lookup.providerMessageId === null) continue;
      const owner = named.get(lookup.providerMessageId);
      if (owner !== undefined && owner !== lookup.messageId) idsOfOthers.add(lookup.providerMessageId);
    }
    const reports = settlementReports(provider, byId, lookups, idsOfOthers, new Date().toISOString());
    let applied: StatusChange[] = [];
    if (reports.length > 0) {
      const result = await this.statuses.apply(reports, async (changes, manager) => {
        await this.credits.refund(manager, changes);
        await this.publisher.publish(changes);
      });
      applied = result.applied;
    }
    const counts = countSettled(applied, lookups.length);
    this.countMetrics(counts);
    return counts;
  }

  private countMetrics(counts: SettledCounts): void {
    const { sent, delivered, read, failed, notReceived, unresolved } = counts;
    const byTo: [string, number][] = [
      ['SENT', sent],
      ['DELIVERED', delivered],
      ['READ', read],
      ['FAILED', failed],
      ['NOT_RECEIVED', notReceived],
      ['unchanged', unresolved],
    ];
    for (const [to, n] of byTo) if (n > 0) this.metrics.settled.inc({ to }, n);
  }
}
