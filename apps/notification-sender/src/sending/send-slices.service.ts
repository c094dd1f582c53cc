import { Injectable } from '@nestjs/common';
import type { BatchItemV1, MessageBatchV1 } from '@ums/contracts';
import type { SendResult } from '@ums/domain';
import type { ConsumedMessage } from '@ums/platform';
import type { LoadedCredential, SendOutcome } from '../providers/provider-adapter';
import type { CampaignContent } from './campaign-content.repository';
import { ContentRenderingService } from './content-rendering.service';
import { ProviderExchangeService } from './provider-exchange.service';
import { type HeldClaim, type PreparedSend, SendClaimsService } from './send-claims.service';
import { SendGrantsService, type SliceGrant } from './send-grants.service';
import { SendSettlementService } from './send-settlement.service';

/**
 * Sends the unsettled messages of a batch slice by slice: for each grant of tokens, its messages are
 * claimed, rendered, refreshed if their claim aged, sent through the provider at their slots, and
 * their results settled by the claim's owner. A failure between claim and provider call gives the
 * claim back to PENDING and is rethrown.
 */
@Injectable()
export class SendSlicesService {
  constructor(
    private readonly grants: SendGrantsService,
    private readonly claims: SendClaimsService,
    private readonly content: ContentRenderingService,
    private readonly exchange: ProviderExchangeService,
    private readonly settlement: SendSettlementService,
  ) {}

  /** Takes tokens and sends each grant at once (tokens are never banked), then waits for every send. */
  async sendUnderRateLimit(
    message: ConsumedMessage<MessageBatchV1>,
    ids: readonly string[],
    credential: LoadedCredential,
  ): Promise<void> {
    const batch = message.value;
    const sends: Promise<void>[] = [];
    let waitFailure: { error: unknown } | undefined;
    let next = 0;
    try {
      while (next < ids.length) {
        const grant = await this.grants.take(batch, credential, ids.length - next);
        const slice = ids.slice(next, next + grant.granted);
        next += slice.length;
        // Claimed now, sent at the slots: the claim's round trip overlaps the wait for them.
        const send = this.sendSlice(message, slice, credential, this.grants.slotsOf(batch, slice, grant));
        // Handled now, reported below by allSettled: a slice that fails while the loop waits for the
        // next grant must not be an unhandled rejection (a lost MySQL connection once ended the process).
        send.catch(() => undefined);
        sends.push(send);
      }
    } catch (error: unknown) {
      waitFailure = { error };
    }
    const settled = await Promise.allSettled(sends);
    if (waitFailure !== undefined) throw waitFailure.error;
    const failed = settled.find((s): s is PromiseRejectedResult => s.status === 'rejected');
    if (failed !== undefined) throw failed.reason;
  }

  /** Settles every message with the credential's failure: nothing can be sent with it (no tokens needed). */
  async failWithoutSending(
    message: ConsumedMessage<MessageBatchV1>,
    ids: readonly string[],
    failure: SendResult,
  ): Promise<void> {
    await this.sendSlice(message, ids, undefined, undefined, () => failure);
  }

  /** Claims, sends and records one slice of a batch. `failAll` replaces the provider call. */
  private async sendSlice(
    message: ConsumedMessage<MessageBatchV1>,
    ids: readonly string[],
    credential: LoadedCredential | undefined,
    grant?: SliceGrant,
    failAll?: () => SendResult,
  ): Promise<void> {
    const release = await this.claims.reserve(ids.length);
    try {
      await this.claimAndSend(message, ids, credential, release, grant, failAll);
    } finally {
      release();
    }
  }

  /**
   * Claims a slice and sends it. What can fail before the provider call is done before the claim
   * where it can be (the campaign's content); what must follow it (rendering, retaking a stale
   * grant, refreshing the claim) gives the claim back to PENDING when it throws, and the error goes
   * on to the consumer, which handles the batch again. Nothing claimed is left to expire unsent.
   */
  private async claimAndSend(
    message: ConsumedMessage<MessageBatchV1>,
    ids: readonly string[],
    credential: LoadedCredential | undefined,
    releaseClaims: () => void,
    grant: SliceGrant | undefined,
    failAll: (() => SendResult) | undefined,
  ): Promise<void> {
    const batch = message.value;
    const campaign = failAll === undefined ? await this.content.campaignContentBefore(batch) : undefined;
    const items = new Map(batch.items.map((item) => [item.messageId, item]));
    // Rendered once, within the claim: the claim writes each message's segments and charge.
    const { token, held, skipped, optedOut } = await this.claims.claim(
      message,
      ids,
      credential,
      grant?.slots,
      (claimable) => this.content.renderClaimed(batch, claimable, items, failAll, campaign),
    );
    if (optedOut.length > 0) await this.settlement.announce(optedOut);
    if (held === undefined) {
      if (skipped.length > 0) await this.settlement.handleSkipped(message, token, skipped);
      return;
    }
    const prepared = await this.prepare(held, skipped, items, failAll, campaign);
    const { results } = prepared;
    let reported: Promise<void> = Promise.resolve();
    if (prepared.outgoing.length > 0 && credential !== undefined) {
      if (grant !== undefined) this.grants.ready(batch, grant.decidedAt);
      const outcomes = await this.sendPrepared(held, credential, prepared);
      for (const { messageId, request: _request, ...result } of outcomes) results.set(messageId, result);
      // Beside the recording, not before it: the claimed rows wait for no Redis round trip (it never rejects).
      reported = this.grants.report({ credentialId: credential.id, tenantId: batch.tenantId }, outcomes);
    }
    await this.settlement.settle(message, token, prepared.held, results, items, releaseClaims);
    await reported;
  }

  /**
   * Handles what the claim skipped, renders the claimed messages and confirms the claim; a failure
   * gives the claim back to PENDING and is rethrown.
   */
  private async prepare(
    held: HeldClaim,
    skipped: readonly string[],
    items: ReadonlyMap<string, BatchItemV1>,
    failAll: (() => SendResult) | undefined,
    campaign: CampaignContent | undefined,
  ): Promise<PreparedSend> {
    try {
      if (skipped.length > 0) await this.settlement.handleSkipped(held.message, held.token, skipped);
      const batch = held.message.value;
      const rendered =
        held.rendered ?? (await this.content.renderClaimed(batch, held.claimed, items, failAll, campaign));
      return await this.claims.confirm(held, rendered);
    } catch (error: unknown) {
      await this.claims.giveBack(held, error);
      throw error;
    }
  }

  /**
   * The provider call. Provider requests are not aborted at shutdown: an answer recorded beats an
   * UNKNOWN. Those still queued past the claim's window are not sent (CLAIM_WINDOW_PASSED, back to
   * PENDING). It throws only while none of the claim was put on the wire: all of it goes back to
   * PENDING, and the error goes on.
   */
  private async sendPrepared(
    held: HeldClaim,
    credential: LoadedCredential,
    prepared: PreparedSend,
  ): Promise<SendOutcome[]> {
    try {
      return await this.exchange.send(held.message.value, credential, prepared);
    } catch (error: unknown) {
      await this.claims.giveBack(held, error);
      throw error;
    }
  }
}
