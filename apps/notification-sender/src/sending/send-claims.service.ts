import { randomUUID } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import type { MessageBatchV1 } from '@ums/contracts';
import type { SendResult } from '@ums/domain';
import type { ConsumedMessage } from '@ums/platform';
import { PinoLogger } from 'nestjs-pino';
import type { LoadedCredential, OutgoingMessage } from '../providers/provider-adapter';
import { ProvidersConfig } from '../providers/providers.config';
import { ClaimBudget } from './claim-budget';
import type { StatusChange } from './status-change';
import { type ClaimTiming, claimTimingOf } from './claim-timing';
import type { RenderedClaim } from './content-rendering.service';
import {
  type ClaimedMessage,
  type ClaimRenderer,
  MessageClaimsRepository,
} from './message-claims.repository';
import { SendingConfig } from './sending.config';
import { SendingMetrics } from './sending.metrics';

/**
 * A claim older than this when its messages are ready to go is refreshed (and checked) before the
 * provider call; a younger one goes as claimed, so the hot path (claims a few ms old) takes no extra
 * round trip that would delay its granted sends. Safety does not rest on it: requests start only
 * within the claim window counted from the claim or the refresh (ClaimTiming.startWindowMs).
 */
const CLAIM_RECHECK_MS = 1_000;

/** A claim taken for one slice, and what its provider call needs. */
export interface HeldClaim {
  readonly message: ConsumedMessage<MessageBatchV1>;
  readonly token: string;
  /** `performance.now()` just before the claim was taken (its rows' claimed_at is later). */
  readonly claimedAt: number;
  readonly claimed: readonly ClaimedMessage[];
  readonly credential: LoadedCredential | undefined;
  /** Each message's slot (`performance.now()`, AcquireResult.slotsMs): it goes no earlier. */
  readonly slots: ReadonlyMap<string, number> | undefined;
  /** The claimed messages as the claim rendered them (credit refusals included). */
  readonly rendered?: RenderedClaim;
}

/** What a claim took: the claim when it took any message, and the ids it skipped. */
export interface SliceClaim {
  readonly token: string;
  readonly held: HeldClaim | undefined;
  /** Not PENDING, or locked by another transaction (see SendSettlementService.handleSkipped). */
  readonly skipped: readonly string[];
  /** Opted out since they were created: SKIPPED by the claim, their status events still to publish. */
  readonly optedOut: readonly StatusChange[];
}

/** A claim ready for its provider call: rendered, its grant fresh, its rows confirmed held. */
export interface PreparedSend {
  /** Results decided without the provider (content refused, credential unusable). */
  readonly results: Map<string, SendResult>;
  readonly outgoing: OutgoingMessage[];
  /** The slot of each outgoing message, in their order (`performance.now()`). */
  readonly slots?: readonly number[];
  /** The claimed messages still held: only these are sent and recorded. */
  readonly held: readonly ClaimedMessage[];
  /** No provider request starts after this `performance.now()` (see ClaimTiming.startWindowMs). */
  readonly startBy: number;
}

/**
 * Claims in MySQL for sending (PENDING -> SENDING under a claim token, SKIP LOCKED), within a
 * budget of messages held claimed at once (SENDER_MAX_CLAIMED_MESSAGES); refreshes a claim that aged
 * before its provider call, and gives one back to PENDING when something failed before that call.
 */
@Injectable()
export class SendClaimsService {
  private readonly budget: ClaimBudget;
  private readonly timing: ClaimTiming;

  constructor(
    private readonly claims: MessageClaimsRepository,
    config: SendingConfig,
    providersConfig: ProvidersConfig,
    private readonly metrics: SendingMetrics,
    private readonly logger: PinoLogger,
  ) {
    this.logger.setContext(SendClaimsService.name);
    // At start-up: a claim must outlive queueing plus the provider request (throws CONFIG_INVALID).
    this.timing = claimTimingOf({ ...config, ...providersConfig });
    this.budget = new ClaimBudget(config.SENDER_MAX_CLAIMED_MESSAGES);
  }

  /** Waits until `n` more messages may be held claimed; the function returned gives them back. */
  reserve(n: number): Promise<() => void> {
    return this.budget.acquire(n);
  }

  /**
   * Claims the slice's messages, rendering them within the claim (`render`: their segments and
   * credits go with it); held (paused or stopped runs, or no credit) and skipped ones are counted.
   */
  async claim(
    message: ConsumedMessage<MessageBatchV1>,
    ids: readonly string[],
    credential: LoadedCredential | undefined,
    slots: ReadonlyMap<string, number> | undefined,
    render?: ClaimRenderer,
  ): Promise<SliceClaim> {
    const lane = message.value.lane;
    const token = randomUUID();
    const claimedAt = performance.now();
    const claim = await this.claims.claim(ids, token, render);
    this.metrics.count(lane, 'held', claim.held.length);
    this.metrics.count(lane, 'skipped', claim.skipped.length);
    this.metrics.count(lane, 'opted_out', claim.optedOut.length);
    const held =
      claim.claimed.length === 0
        ? undefined
        : { message, token, claimedAt, claimed: claim.claimed, credential, slots, rendered: claim.rendered };
    return { token, held, skipped: claim.skipped, optedOut: claim.optedOut };
  }

  /**
   * Readies the rendered messages for their provider call: if the claim is older than
   * CLAIM_RECHECK_MS, refreshes it right before the call, so only rows still SENDING under the token
   * go, and the claim's window restarts from the refresh.
   */
  async confirm(held: HeldClaim, rendered: RenderedClaim): Promise<PreparedSend> {
    const { results, outgoing } = rendered;
    const startBy = held.claimedAt + this.timing.startWindowMs;
    if (outgoing.length === 0 || held.credential === undefined) {
      return { results, outgoing: [], held: held.claimed, startBy };
    }
    const slots = outgoing.map((o) => held.slots?.get(o.messageId) ?? performance.now());
    const checkedAt = performance.now();
    if (checkedAt - held.claimedAt <= CLAIM_RECHECK_MS) {
      // Taken a moment ago: the claim is its own check (a refresh would delay the granted sends).
      return { results, outgoing, slots, held: held.claimed, startBy };
    }
    const stillHeld = new Set(
      await this.claims.refresh(
        held.token,
        held.claimed.map((c) => c.id),
      ),
    );
    const lost = held.claimed.length - stillHeld.size;
    if (lost > 0) {
      // Expired by a sweep before the refresh (this process stalled past SENDER_CLAIM_TIMEOUT_MS):
      // they are UNKNOWN now and not ours to send.
      this.metrics.claimsLost.inc(lost);
      this.logger.warn(
        { lost, batchId: held.message.value.batchId },
        'Claims expired before their provider call: not sent',
      );
    }
    const kept = outgoing.map((o) => stillHeld.has(o.messageId));
    return {
      results,
      outgoing: outgoing.filter((_, i) => kept[i] === true),
      slots: slots.filter((_, i) => kept[i] === true),
      held: held.claimed.filter((c) => stillHeld.has(c.id)),
      startBy: checkedAt + this.timing.startWindowMs,
    };
  }

  /** Gives a claim back to PENDING after `cause` stopped it before its provider call. */
  async giveBack(held: HeldClaim, cause: unknown): Promise<void> {
    try {
      const released = await this.claims.release(
        held.token,
        held.claimed.map((c) => c.id),
      );
      this.metrics.claimsReleased.inc(released);
      this.logger.warn(
        { err: cause, released, batchId: held.message.value.batchId },
        'Sending failed before the provider call: claim given back to PENDING',
      );
    } catch (error: unknown) {
      // The batch is handled again anyway (the cause is rethrown); rows left SENDING expire to UNKNOWN.
      this.logger.error(
        { err: error, cause, batchId: held.message.value.batchId },
        'Giving a claim back failed: its messages become UNKNOWN when it expires',
      );
    }
  }
}
