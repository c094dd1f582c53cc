import { Injectable } from '@nestjs/common';
import type { BatchItemV1, MessageBatchV1 } from '@ums/contracts';
import type { SendResult } from '@ums/domain';
import type { ConsumedMessage } from '@ums/platform';
import { type ClaimedMessage, MessageClaimsRepository } from './message-claims.repository';
import { RetryRoutingService } from './retry-routing.service';
import { SendingMetrics } from './sending.metrics';
import { labelOf, planSettlement } from './settlement-plan';
import type { StatusChange } from './status-change';
import { StatusEventsPublisher } from './status-events.publisher';

/**
 * Settles what a claim ended with: retries and dead letters on Kafka first, then the rows recorded
 * by the claim's owner, then their status events. Copies of a batch whose messages are settled
 * already publish those status events again; messages another transaction held at claim time wait
 * on the first retry tier.
 */
@Injectable()
export class SendSettlementService {
  constructor(
    private readonly claims: MessageClaimsRepository,
    private readonly statuses: StatusEventsPublisher,
    private readonly routing: RetryRoutingService,
    private readonly metrics: SendingMetrics,
  ) {}

  /**
   * Decides each result, puts retries and dead letters on Kafka, then records the rows. Tier and
   * dead-letter copies are on Kafka before the rows are recorded, so a crash in between leaves the
   * rows SENDING (later UNKNOWN), never PENDING with nothing to send them. `releaseClaims` gives the
   * claim's budget back once the rows are recorded.
   */
  async settle(
    message: ConsumedMessage<MessageBatchV1>,
    token: string,
    claimed: readonly ClaimedMessage[],
    results: ReadonlyMap<string, SendResult>,
    items: ReadonlyMap<string, BatchItemV1>,
    releaseClaims: () => void,
  ): Promise<void> {
    const batch = message.value;
    const { outcomes, retries, exhausted } = planSettlement(claimed, results, items, {
      tierDelaysMs: this.routing.tierDelaysMs,
      nowMs: Date.now(),
      jitterRatio: this.routing.jitterRatio,
    });
    await this.routing.route(message, token, retries, exhausted);
    const changes = await this.claims.record(token, outcomes);
    // Recorded rows are no longer SENDING: their budget goes to the next claim while the events go
    // out (held through the publish, it kept claims waiting and their grants going stale).
    releaseClaims();
    await this.statuses.publish(changes);
    const recorded = new Set(changes.map((change) => change.messageId));
    for (const outcome of outcomes) {
      if (recorded.has(outcome.id)) this.metrics.count(batch.lane, labelOf(outcome), 1);
    }
  }

  /**
   * Skipped messages were not PENDING, or another transaction held them. Those settled by a sender
   * that died before publishing get their status events again; those still PENDING (the lock was
   * someone else's read) wait on the first tier, so that none is left behind unclaimed.
   */
  async handleSkipped(
    message: ConsumedMessage<MessageBatchV1>,
    token: string,
    skipped: readonly string[],
  ): Promise<void> {
    // SENDING too: a retry copy can arrive before its attempt released the rows; dropping it lost the
    // retry (seen with tiers scaled to 2%). A row that stays SENDING expires to UNKNOWN meanwhile.
    const pending = new Set(await this.claims.unsettledAmong(skipped));
    await this.republishSettled(skipped.filter((id) => !pending.has(id)));
    if (pending.size === 0) return;
    const items = message.value.items.filter((item) => pending.has(item.messageId));
    this.metrics.claimContended.inc(items.length);
    await this.routing.retryContended(message, token, items);
  }

  /** Publishes the status events of changes a claim made without a send (recipients opted out meanwhile). */
  async announce(changes: readonly StatusChange[]): Promise<void> {
    await this.statuses.publish(changes);
  }

  /**
   * Publishes again the status events of settled messages met in a copy of a batch (same event ids),
   * closing the gap of a sender killed between recording and publishing. Rows still in flight
   * (SENDING) are their claimer's to record.
   */
  async republishSettled(ids: readonly string[]): Promise<void> {
    if (ids.length === 0) return;
    const settled = await this.claims.settledChanges(ids);
    if (settled.length > 0) {
      await this.statuses.publish(settled);
      this.metrics.statusRepublished.inc(settled.length);
    }
  }
}
