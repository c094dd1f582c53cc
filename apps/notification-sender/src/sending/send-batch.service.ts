import { randomUUID } from 'node:crypto';
import { Injectable, type BeforeApplicationShutdown } from '@nestjs/common';
import {
  type BatchItemV1,
  ConsumerGroups,
  FailureReason,
  KafkaHeaders,
  type MessageBatchV1,
  SendLane,
  SendRetryTiers,
  Topics,
} from '@ums/contracts';
import {
  compileTemplate,
  disposeSendResult,
  NOT_SENT_CODES,
  type SendResult,
  sendSignalsOf,
  type TemplateContent,
} from '@ums/domain';
import {
  buildDeadLetter,
  type ConsumedMessage,
  jsonColumn,
  KafkaProducer,
  type RawRecord,
} from '@ums/platform';
import { PinoLogger } from 'nestjs-pino';
import { CredentialLoader } from '../providers/credential-loader.service';
import type { LoadedCredential, OutgoingMessage, SendOutcome } from '../providers/provider-adapter';
import { ProviderRegistry } from '../providers/provider-registry.service';
import { ProvidersConfig } from '../providers/providers.config';
import {
  type AcquireRequest,
  type AcquireResult,
  type RateCredential,
  RateLimitService,
} from '../rate-limit/rate-limit.service';
import { type CampaignContent, CampaignContentRepository } from './campaign-content.repository';
import { ClaimBudget } from './claim-budget';
import { type ClaimTiming, claimTimingOf } from './claim-timing';
import { RunStatesRepository } from './run-states.repository';
import {
  type ClaimedMessage,
  MessageClaimsRepository,
  type RecordedOutcome,
} from './message-claims.repository';
import { SendingConfig } from './sending.config';
import { type MessageOutcomeLabel, SendingMetrics } from './sending.metrics';
import { StatusEventsPublisher } from './status-events.publisher';

/** A request that cannot start within this long after its slot takes new tokens instead (see sendAtSlots). */
const GRANT_FRESH_MS = 40;

/**
 * A claim older than this when its messages are ready to go is refreshed (and checked) before the
 * provider call; a younger one goes as claimed, so the hot path (claims a few ms old) takes no extra
 * round trip that would delay its granted sends. Safety does not rest on it: requests start only
 * within the claim window counted from the claim or the refresh (ClaimTiming.startWindowMs).
 */
const CLAIM_RECHECK_MS = 1_000;

/** The result of claimed messages whose retaken tokens did not come within the claim's window. */
const WINDOW_PASSED: SendResult = {
  kind: 'retryable',
  reason: FailureReason.Other,
  code: 'CLAIM_WINDOW_PASSED',
  detail: 'not sent: no tokens within the claim window',
  congestion: false,
  ambiguous: false,
};

/** A grant's slots on this process's clock (`performance.now()`), in order. */
function slotTimes(grant: AcquireResult): number[] {
  return grant.slotsMs.map((slotMs) => grant.decidedAt + slotMs);
}

/** Each id's slot (`performance.now()`): the grant's, in order. */
function slotsOf(ids: readonly string[], grant: AcquireResult): Map<string, number> {
  const times = slotTimes(grant);
  return new Map(ids.map((id, i) => [id, times[i] ?? grant.decidedAt]));
}

/** A message that was never put on the wire (see NOT_SENT_CODES). */
function notSent(outcome: SendOutcome): boolean {
  return outcome.kind === 'retryable' && NOT_SENT_CODES.has(outcome.code);
}

/** A message the provider layer did not send because its request could not start soon after its slot. */
function isSlotMissed(outcome: SendOutcome): boolean {
  return outcome.kind === 'retryable' && outcome.code === 'SLOT_MISSED';
}

/** The consumer group of campaign batches; its `.retry` group reads the send retry tiers. */
export const SENDER_GROUP = ConsumerGroups.sender;

/** What a single send keeps on its row: the producer's content and the recipient's variables. */
interface StoredSingleSend {
  readonly content?: TemplateContent;
  readonly variables?: Record<string, string> | null;
}

type Rendered =
  | { readonly ok: true; readonly content: TemplateContent }
  | { readonly ok: false; readonly result: SendResult };

/** A claim taken for one slice, and what its provider call needs. */
interface HeldClaim {
  readonly message: ConsumedMessage<MessageBatchV1>;
  readonly token: string;
  /** `performance.now()` just before the claim was taken (its rows' claimed_at is later). */
  readonly claimedAt: number;
  readonly claimed: readonly ClaimedMessage[];
  readonly credential: LoadedCredential | undefined;
  /** Each message's slot (`performance.now()`, AcquireResult.slotsMs): it goes no earlier. */
  readonly slots: ReadonlyMap<string, number> | undefined;
  readonly failAll: (() => SendResult) | undefined;
  /** The campaign's content, read before the claim (bulk batches without content of their own). */
  readonly campaign: CampaignContent | undefined;
}

/** A claim ready for its provider call: rendered, its grant fresh, its rows confirmed held. */
interface PreparedSend {
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
 * Sends one batch exactly once per message (docs/architecture.md, Guarantees and Sending):
 * tokens from the credential's shared bucket first, then, for each grant, the granted messages are
 * claimed in MySQL (PENDING -> SENDING under a claim token, SKIP LOCKED), the claim is refreshed
 * right before the provider call (only rows still held go, and none starts past the claim's window),
 * sent through the provider adapter, and their results recorded by the claim's owner. A failure
 * between claim and provider call gives the claim back to PENDING and is rethrown. Retryable results wait on a
 * send retry tier (only those items), exhausted ones go to the dead-letter topic, ambiguous ones
 * become UNKNOWN. Tier and dead-letter copies are on Kafka before the rows are recorded, so a crash
 * in between leaves the rows SENDING (later UNKNOWN), never PENDING with nothing to send them.
 */
@Injectable()
export class SendBatchService implements BeforeApplicationShutdown {
  /** Aborts waits for tokens at shutdown; provider requests already started are let finish. */
  private readonly shutdown = new AbortController();
  private readonly tierDelaysMs: readonly number[];
  private readonly claimBudget: ClaimBudget;
  private readonly timing: ClaimTiming;

  constructor(
    private readonly claims: MessageClaimsRepository,
    private readonly statuses: StatusEventsPublisher,
    private readonly campaigns: CampaignContentRepository,
    private readonly runs: RunStatesRepository,
    private readonly credentials: CredentialLoader,
    private readonly providers: ProviderRegistry,
    private readonly rateLimit: RateLimitService,
    private readonly producer: KafkaProducer,
    private readonly config: SendingConfig,
    providersConfig: ProvidersConfig,
    private readonly metrics: SendingMetrics,
    private readonly logger: PinoLogger,
  ) {
    this.logger.setContext(SendBatchService.name);
    // At start-up: a claim must outlive queueing plus the provider request (throws CONFIG_INVALID).
    this.timing = claimTimingOf({ ...config, ...providersConfig });
    this.claimBudget = new ClaimBudget(config.SENDER_MAX_CLAIMED_MESSAGES);
    this.tierDelaysMs = SendRetryTiers.map((tier) =>
      Math.round(((tier.delayMs ?? 0) * config.SENDER_RETRY_DELAY_PERCENT) / 100),
    );
  }

  beforeApplicationShutdown(): void {
    this.shutdown.abort();
  }

  /**
   * Resolves once every message of the batch is recorded (or held, or found handled already) and
   * its retries, dead letters and status events are on Kafka: the offset may then be committed.
   */
  async send(message: ConsumedMessage<MessageBatchV1>): Promise<void> {
    const batch = message.value;
    const endTimer = this.metrics.batchSeconds.startTimer({ lane: batch.lane });
    const ids = [...new Set(batch.items.map((item) => item.messageId))];
    if (batch.runId !== undefined && !(await this.runs.isRunning(batch.runId))) {
      // Paused or stopped: its messages stay PENDING (the expander publishes them again on resume).
      this.count(batch.lane, 'held', ids.length);
    } else {
      // A redelivered or re-published batch carries messages already settled: they take no tokens
      // (measured: after a broker restart, copies burned the whole credential rate while the messages
      // still PENDING waited behind them). SENDING ones go on: a retry-tier copy can arrive before the
      // attempt that published it has released its rows (the claim's contended path retries them).
      const unsettled = new Set(await this.claims.unsettledAmong(ids));
      const settled = ids.filter((id) => !unsettled.has(id));
      if (settled.length > 0) {
        this.count(batch.lane, 'skipped', settled.length);
        await this.republishSettled(settled);
      }
      const toSend = ids.filter((id) => unsettled.has(id));
      if (toSend.length > 0) {
        const loaded = await this.credentials.load(batch.credentialId);
        if (loaded.ok) await this.sendUnderRateLimit(message, toSend, loaded.credential);
        else {
          // Nothing can be sent with it: every message takes the credential's failure (no tokens needed).
          const failure = loaded.failure;
          await this.sendSlice(message, toSend, undefined, undefined, () => failure);
        }
      }
    }
    // The expander's backpressure counts batches; a partial retry's batch was counted already.
    if (batch.runId !== undefined && message.headers[KafkaHeaders.partialRetry] === undefined) {
      await this.claims.finishBatch(batch.runId, batch.seq);
    }
    endTimer();
  }

  /** Takes tokens and sends each grant at once (tokens are never banked), then waits for every send. */
  private async sendUnderRateLimit(
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
        const grant = await this.rateLimit.take(
          this.tokenRequest(batch, credential, ids.length - next),
          this.shutdown.signal,
        );
        const slice = ids.slice(next, next + grant.granted);
        next += slice.length;
        // Claimed now, sent at the slots: the claim's round trip overlaps the wait for them.
        const send = this.sendSlice(message, slice, credential, slotsOf(slice, grant));
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

  /** Claims, sends and records one slice of a batch. `failAll` replaces the provider call. */
  private async sendSlice(
    message: ConsumedMessage<MessageBatchV1>,
    ids: readonly string[],
    credential: LoadedCredential | undefined,
    slots?: ReadonlyMap<string, number>,
    failAll?: () => SendResult,
  ): Promise<void> {
    const release = await this.claimBudget.acquire(ids.length);
    try {
      await this.claimAndSend(message, ids, credential, release, slots, failAll);
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
    slots: ReadonlyMap<string, number> | undefined,
    failAll?: () => SendResult,
  ): Promise<void> {
    const batch = message.value;
    const campaign = failAll === undefined ? await this.campaignContentBefore(batch) : undefined;
    const token = randomUUID();
    const claimedAt = performance.now();
    const claim = await this.claims.claim(ids, token);
    this.count(batch.lane, 'held', claim.held.length);
    this.count(batch.lane, 'skipped', claim.skipped.length);
    if (claim.claimed.length === 0) {
      if (claim.skipped.length > 0) await this.handleSkipped(message, token, claim.skipped);
      return;
    }
    const held: HeldClaim = {
      message,
      token,
      claimedAt,
      claimed: claim.claimed,
      credential,
      slots,
      failAll,
      campaign,
    };
    let prepared: PreparedSend;
    try {
      if (claim.skipped.length > 0) await this.handleSkipped(message, token, claim.skipped);
      prepared = await this.prepare(held);
    } catch (error: unknown) {
      await this.giveBack(held, error);
      throw error;
    }
    const { results } = prepared;
    let reported: Promise<void> = Promise.resolve();
    if (prepared.outgoing.length > 0 && credential !== undefined) {
      // Provider requests are not aborted at shutdown: an answer recorded beats an UNKNOWN. Those
      // still queued past the claim's window are not sent (CLAIM_WINDOW_PASSED, back to PENDING).
      let outcomes: SendOutcome[];
      try {
        outcomes = await this.sendAtSlots(batch, credential, prepared);
      } catch (error: unknown) {
        // Thrown only while none of the claim was put on the wire: all of it goes back to PENDING.
        await this.giveBack(held, error);
        throw error;
      }
      const sent: SendResult[] = [];
      for (const { messageId, ...result } of outcomes) {
        results.set(messageId, result);
        sent.push(result);
      }
      // Beside the recording, not before it: the claimed rows wait for no Redis round trip (it never rejects).
      reported = this.reportToAimd({ credentialId: credential.id, tenantId: batch.tenantId }, sent);
    }
    const items = new Map(batch.items.map((item) => [item.messageId, item]));
    await this.settle(message, token, prepared.held, results, items, releaseClaims);
    await reported;
  }

  /**
   * Sends the prepared messages at their slots. Those whose request could not start within
   * GRANT_FRESH_MS of its slot (timer lag on a busy host, the credential's concurrency) take new
   * tokens and go again, so that a late request never reaches the provider bunched with requests on
   * time; if the tokens do not come within the claim's window they are not sent (retryable, back to
   * PENDING on a retry tier), nor if Redis fails after some of the claim went. A Redis failure while
   * none went is thrown. One outcome per message.
   */
  private async sendAtSlots(
    batch: MessageBatchV1,
    credential: LoadedCredential,
    prepared: PreparedSend,
  ): Promise<SendOutcome[]> {
    const done: SendOutcome[] = [];
    let pending = prepared.outgoing;
    let slots: readonly number[] | undefined = prepared.slots;
    while (pending.length > 0) {
      const outcomes = await this.providers.send(credential.id, pending, {
        startBy: prepared.startBy,
        slots,
        // At shutdown they go as they are (retake waits for no tokens then).
        lateAfterMs: this.shutdown.signal.aborted ? undefined : GRANT_FRESH_MS,
      });
      const missed = new Set(outcomes.filter(isSlotMissed).map((o) => o.messageId));
      done.push(...outcomes.filter((o) => !missed.has(o.messageId)));
      pending = pending.filter((o) => missed.has(o.messageId));
      if (pending.length === 0) break;
      try {
        slots = await this.retake(batch, credential, pending.length, prepared.startBy);
      } catch (error: unknown) {
        // Redis failed: with nothing of the claim sent yet, the error goes on and the claim goes back.
        if (done.every(notSent)) throw error;
        this.logger.warn({ err: error, credentialId: credential.id }, 'Late sends could not retake tokens');
        slots = undefined;
      }
      if (slots === undefined) {
        done.push(...pending.map((o) => ({ messageId: o.messageId, ...WINDOW_PASSED })));
        break;
      }
    }
    return done;
  }

  /**
   * Renders the claimed messages, then, if the claim is older than CLAIM_RECHECK_MS, refreshes it
   * right before the provider call: only rows still SENDING under the token go, and the claim's
   * window restarts from the refresh.
   */
  private async prepare(held: HeldClaim): Promise<PreparedSend> {
    const { results, outgoing } = await this.renderClaimed(held);
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
    const batch = held.message.value;
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
        { lost, batchId: batch.batchId },
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

  /** The claimed messages rendered: those to send, and the results of those that cannot go. */
  private async renderClaimed(
    held: HeldClaim,
  ): Promise<{ results: Map<string, SendResult>; outgoing: OutgoingMessage[] }> {
    const batch = held.message.value;
    const results = new Map<string, SendResult>();
    const outgoing: OutgoingMessage[] = [];
    const items = new Map(batch.items.map((item) => [item.messageId, item]));
    for (const claimed of held.claimed) {
      if (held.failAll !== undefined) {
        results.set(claimed.id, held.failAll());
        continue;
      }
      const rendered = await this.render(batch, claimed, items.get(claimed.id), held.campaign);
      if (!rendered.ok) results.set(claimed.id, rendered.result);
      else
        outgoing.push({
          messageId: claimed.id,
          channel: claimed.channel,
          recipient: claimed.recipient,
          content: rendered.content,
        });
    }
    return { results, outgoing };
  }

  /** Gives a claim back to PENDING after `cause` stopped it before its provider call. */
  private async giveBack(held: HeldClaim, cause: unknown): Promise<void> {
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

  /**
   * The campaign's content for a bulk batch without content of its own, read before the claim, so
   * that a database error leaves nothing claimed. Single sends keep their content on the row.
   */
  private async campaignContentBefore(batch: MessageBatchV1): Promise<CampaignContent | undefined> {
    if (batch.content !== undefined || batch.lane === SendLane.Priority) return undefined;
    return this.campaigns.contentOf(batch.campaignId);
  }

  /**
   * Tokens whose requests could not start within GRANT_FRESH_MS of their slots (slow claim, busy event
   * loop) are given back and taken again, so that sends delayed together do not reach the provider bunched
   * in one second. Giving back keeps the credential's rate whole: dropping stale grants cost half of
   * it when claims were slow (measured: 94% of grants went stale with the database under load).
   * At shutdown the claimed messages go as they are. Resolves to the new slots, or undefined when the
   * tokens did not come by `deadline` (the claim's window): what came is given back, and the messages
   * must not go now.
   */
  private async retake(
    batch: MessageBatchV1,
    credential: LoadedCredential,
    count: number,
    deadline: number,
  ): Promise<number[] | undefined> {
    this.metrics.grantsRetaken.inc(count);
    // Past the claim's window the messages could not start in time: undefined, and they are not sent.
    const signal = AbortSignal.any([
      this.shutdown.signal,
      AbortSignal.timeout(Math.max(0, Math.floor(deadline - performance.now()))),
    ]);
    await this.rateLimit
      .giveBack(this.tokenRequest(batch, credential, count), count)
      .catch((error: unknown) => {
        // Not giving back costs only tokens (as dropping the grant did); the messages still go.
        this.logger.warn({ err: error, credentialId: credential.id }, 'Stale tokens could not be given back');
      });
    const slots: number[] = [];
    while (slots.length < count) {
      try {
        const grant = await this.rateLimit.take(
          this.tokenRequest(batch, credential, count - slots.length),
          signal,
        );
        slots.push(...slotTimes(grant));
      } catch (error: unknown) {
        if (this.shutdown.signal.aborted) {
          return [...slots, ...new Array<number>(count - slots.length).fill(performance.now())];
        }
        if (!signal.aborted) throw error;
        const got = slots.length;
        if (got > 0) {
          await this.rateLimit
            .giveBack(this.tokenRequest(batch, credential, got), got)
            .catch((giveBackError: unknown) => {
              this.logger.warn(
                { err: giveBackError, credentialId: credential.id },
                'Unused tokens could not be given back',
              );
            });
        }
        return undefined;
      }
    }
    return slots;
  }

  private tokenRequest(batch: MessageBatchV1, credential: LoadedCredential, want: number): AcquireRequest {
    const ceiling = this.withHeadroom(credential.limits.ceiling);
    return {
      credentialId: credential.id,
      tenantId: batch.tenantId,
      campaignId: batch.campaignId,
      lane: batch.lane === SendLane.Priority ? 'priority' : 'bulk',
      want,
      ceiling,
      floor: Math.min(credential.limits.floor, ceiling),
      tenantCapPerSec: credential.limits.tenantCapPerSec,
    };
  }

  /** A credential's limit less SENDER_RATE_HEADROOM_PERCENT, never below 1/s. */
  private withHeadroom(perSec: number): number {
    return Math.max(1, (perSec * (100 - this.config.SENDER_RATE_HEADROOM_PERCENT)) / 100);
  }

  /** Decides each result, puts retries and dead letters on Kafka, then records the rows. */
  private async settle(
    message: ConsumedMessage<MessageBatchV1>,
    token: string,
    claimed: readonly ClaimedMessage[],
    results: ReadonlyMap<string, SendResult>,
    items: ReadonlyMap<string, BatchItemV1>,
    releaseClaims: () => void,
  ): Promise<void> {
    const batch = message.value;
    const nowMs = Date.now();
    const outcomes: RecordedOutcome[] = [];
    const retries = new Map<number, { items: BatchItemV1[]; dueAt: number; lastError: string }>();
    const exhausted: { item: BatchItemV1; attempts: number; error: string }[] = [];
    for (const message of claimed) {
      const result = results.get(message.id);
      if (result === undefined) throw new Error(`no send result for message ${message.id}`);
      const d = disposeSendResult(result, {
        attempts: message.attempts,
        tierDelaysMs: this.tierDelaysMs,
        nowMs,
        jitterRatio: this.config.SENDER_RETRY_JITTER_PERCENT / 100,
      });
      const id = message.id;
      if (d.action === 'sent') {
        outcomes.push({ id, kind: 'sent', providerMessageId: d.providerMessageId });
        continue;
      }
      const detail = { reason: d.reason, code: d.code, text: d.detail };
      const error = `${d.code}${d.detail === undefined ? '' : `: ${d.detail}`}`;
      const item = items.get(id) ?? { messageId: id, recipient: message.recipient };
      if (d.action === 'fail') outcomes.push({ id, kind: 'failed', ...detail });
      else if (d.action === 'unknown') outcomes.push({ id, kind: 'unknown', ...detail });
      else if (d.action === 'exhausted') {
        outcomes.push({
          id,
          kind: 'failed',
          exhausted: true,
          ...detail,
          reason: FailureReason.RetriesExhausted,
        });
        exhausted.push({ item, attempts: message.attempts, error });
      } else {
        outcomes.push({ id, kind: 'released', notSent: d.notSent, ...detail });
        const tier = retries.get(d.tier) ?? { items: [], dueAt: 0, lastError: error };
        tier.items.push(item);
        // One record per tier: due when its last item is (none is retried early).
        tier.dueAt = Math.max(tier.dueAt, d.dueAt);
        retries.set(d.tier, tier);
      }
    }
    await Promise.all([this.publishRetries(message, token, retries), this.deadLetter(message, exhausted)]);
    const changes = await this.claims.record(token, outcomes);
    // Recorded rows are no longer SENDING: their budget goes to the next claim while the events go
    // out (held through the publish, it kept claims waiting and their grants going stale).
    releaseClaims();
    await this.statuses.publish(changes);
    const recorded = new Set(changes.map((change) => change.messageId));
    for (const outcome of outcomes) {
      if (recorded.has(outcome.id)) this.count(batch.lane, labelOf(outcome), 1);
    }
  }

  private async render(
    batch: MessageBatchV1,
    claimed: ClaimedMessage,
    item: BatchItemV1 | undefined,
    before: CampaignContent | undefined,
  ): Promise<Rendered> {
    let content: TemplateContent;
    let variables: Record<string, string>;
    if (claimed.stored !== null) {
      // A single send: the row keeps what the producer asked for.
      const stored = jsonColumn(claimed.stored) as StoredSingleSend;
      if (stored.content === undefined) return refused('CONTENT_INVALID', 'the message has no content');
      content = stored.content;
      variables = stored.variables ?? {};
    } else if (batch.content !== undefined) {
      content = batch.content;
      variables = item?.variables ?? {};
    } else {
      const campaign = before ?? (await this.campaigns.contentOf(batch.campaignId));
      if (!campaign.ok) return refused('CONTENT_INVALID', campaign.detail);
      return fromRender(campaign.template.render(item?.variables ?? {}));
    }
    const compiled = compileTemplate(content);
    if (!compiled.ok) return refused('CONTENT_INVALID', `${compiled.field}: ${compiled.reason}`);
    return fromRender(compiled.template.render(variables));
  }

  private async publishRetries(
    message: ConsumedMessage<MessageBatchV1>,
    token: string,
    retries: ReadonlyMap<number, { items: BatchItemV1[]; dueAt: number; lastError: string }>,
  ): Promise<void> {
    const batch = message.value;
    const rootId = batch.batchId.split('~')[0] ?? batch.batchId;
    await Promise.all(
      [...retries].map(([tierIndex, retry]) => {
        const tier = SendRetryTiers[tierIndex];
        if (tier === undefined) throw new Error(`no send retry tier ${tierIndex}`);
        const value: MessageBatchV1 = {
          ...batch,
          batchId: `${rootId}~t${tierIndex}~${token.slice(0, 8)}`,
          items: retry.items,
          createdAt: new Date().toISOString(),
        };
        const record: RawRecord = {
          key: tier.keyOf(value),
          value: JSON.stringify(value),
          headers: {
            [KafkaHeaders.dueAt]: String(retry.dueAt),
            // The platform continues from this tier if handling the copy itself fails.
            [KafkaHeaders.attempt]: String(tierIndex + 1),
            [KafkaHeaders.originTopic]:
              message.headers[KafkaHeaders.originTopic] ??
              (batch.lane === SendLane.Priority ? Topics.prioritySends.name : Topics.batches.name),
            [KafkaHeaders.lastError]: retry.lastError.slice(0, 1024),
            [KafkaHeaders.partialRetry]: '1',
          },
        };
        return this.producer.publishRaw(tier.name, [record]);
      }),
    );
  }

  private async deadLetter(
    message: ConsumedMessage<MessageBatchV1>,
    exhausted: readonly { item: BatchItemV1; attempts: number; error: string }[],
  ): Promise<void> {
    if (exhausted.length === 0) return;
    const value: MessageBatchV1 = { ...message.value, items: exhausted.map((e) => e.item) };
    const letter = buildDeadLetter(
      {
        topic: message.topic,
        partition: message.partition,
        offset: message.offset,
        key: message.key === null ? null : Buffer.from(message.key, 'utf8'),
        value: Buffer.from(JSON.stringify(value), 'utf8'),
        headers: message.headers,
      },
      SENDER_GROUP,
      'RETRIES_EXHAUSTED',
      exhausted.map((e) => `${e.item.messageId}: ${e.error}`).join('\n'),
      Math.max(...exhausted.map((e) => e.attempts)),
      new Date(),
    );
    await this.producer.publishRaw(Topics.deadLetters.name, [
      { key: Topics.deadLetters.keyOf(letter), value: JSON.stringify(letter) },
    ]);
  }

  /**
   * Skipped messages were not PENDING, or another transaction held them. Those settled by a sender
   * that died before publishing get their status events again; those still PENDING (the lock was
   * someone else's read) wait on the first tier, so that none is left behind unclaimed.
   */
  private async handleSkipped(
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
    const firstTier = this.tierDelaysMs[0] ?? 0;
    await this.publishRetries(
      message,
      token,
      new Map([
        [0, { items, dueAt: Date.now() + firstTier, lastError: 'CLAIM_CONTENDED: row locked at claim time' }],
      ]),
    );
  }

  /**
   * Publishes again the status events of settled messages met in a copy of a batch (same event ids),
   * closing the gap of a sender killed between recording and publishing. Rows still in flight
   * (SENDING) are their claimer's to record.
   */
  private async republishSettled(ids: readonly string[]): Promise<void> {
    if (ids.length === 0) return;
    const settled = await this.claims.settledChanges(ids);
    if (settled.length > 0) {
      await this.statuses.publish(settled);
      this.metrics.statusRepublished.inc(settled.length);
    }
  }

  /**
   * AIMD learns from what the provider said. Its failure must not fail the batch: the messages are
   * sent and must be recorded, so it is logged and the next report carries on.
   */
  private async reportToAimd(credential: RateCredential, results: readonly SendResult[]): Promise<void> {
    try {
      await this.rateLimit.report(credential, sendSignalsOf(results));
    } catch (error: unknown) {
      const { credentialId } = credential;
      this.logger.error({ credentialId, err: error }, 'Reporting send outcomes to AIMD failed');
    }
  }

  private count(lane: SendLane, outcome: MessageOutcomeLabel, n: number): void {
    if (n > 0) this.metrics.messages.inc({ lane, outcome }, n);
  }
}

function labelOf(outcome: RecordedOutcome): MessageOutcomeLabel {
  if (outcome.kind === 'released') return 'retried';
  if (outcome.kind === 'failed' && outcome.exhausted === true) return 'exhausted';
  return outcome.kind;
}

function refused(code: string, detail: string): Rendered {
  return { ok: false, result: { kind: 'permanent', reason: FailureReason.Rejected, code, detail } };
}

function fromRender(
  rendered:
    | { readonly ok: true; readonly content: TemplateContent }
    | { readonly ok: false; readonly missing: string[] },
): Rendered {
  return rendered.ok
    ? { ok: true, content: rendered.content }
    : refused('VARIABLES_MISSING', `missing variables: ${rendered.missing.join(', ')}`);
}
