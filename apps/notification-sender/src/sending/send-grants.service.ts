import { Injectable, type BeforeApplicationShutdown } from '@nestjs/common';
import { type MessageBatchV1, SendLane } from '@ums/contracts';
import { GrantLead, type SignalledResult, sendSignalsOf } from '@ums/domain';
import { PinoLogger } from 'nestjs-pino';
import type { LoadedCredential } from '../providers/provider-adapter';
import {
  type AcquireRequest,
  type AcquireResult,
  type RateCredential,
  RateLimitService,
} from '../rate-limit/rate-limit.service';
import { GRANT_LEAD, SEND_RATE_HEADROOM_RATIO } from './send-tuning.constants';
import { SendingMetrics } from './sending.metrics';

/** A grant's slots on this process's clock (`performance.now()`), in order. */
function slotTimes(grant: AcquireResult): number[] {
  return grant.slotsMs.map((slotMs) => grant.decidedAt + slotMs);
}

/** A slice's part of a grant: each message's slot (`performance.now()`) and when the grant was decided. */
export interface SliceGrant {
  readonly slots: ReadonlyMap<string, number>;
  readonly decidedAt: number;
}

/**
 * The rate-limit side of sending: tokens from the credential's shared bucket (less
 * SEND_RATE_HEADROOM_RATIO), stale tokens given back and taken again, and what the provider
 * said reported to AIMD. Waits for tokens end at shutdown; the sends already granted go on.
 */
@Injectable()
export class SendGrantsService implements BeforeApplicationShutdown {
  /** Aborts waits for tokens at shutdown; provider requests already started are let finish. */
  private readonly shutdown = new AbortController();
  /** How far past the claim a grant's slots go (one per process: the claim's delay is the process's). */
  private readonly lead = new GrantLead(GRANT_LEAD);

  constructor(
    private readonly rateLimit: RateLimitService,
    private readonly metrics: SendingMetrics,
    private readonly logger: PinoLogger,
  ) {
    this.logger.setContext(SendGrantsService.name);
  }

  beforeApplicationShutdown(): void {
    this.shutdown.abort();
  }

  /** True once the application shuts down: claimed messages then go as they are, without new tokens. */
  get shuttingDown(): boolean {
    return this.shutdown.signal.aborted;
  }

  /** Up to `want` tokens for the batch's messages (waits until some come, or shutdown). */
  take(batch: MessageBatchV1, credential: LoadedCredential, want: number): Promise<AcquireResult> {
    return this.rateLimit.take(this.tokenRequest(batch, credential, want), this.shutdown.signal);
  }

  /**
   * Each id's slot (`performance.now()`): the grant's. On the bulk lane every slot is moved by the
   * same lead, so that the slice is claimed and rendered by its first slot (see GrantLead); priority
   * sends go as soon as they are ready, and a late one retakes its tokens at the cost of a round trip.
   */
  slotsOf(batch: MessageBatchV1, ids: readonly string[], grant: AcquireResult): SliceGrant {
    const lead = batch.lane === SendLane.Bulk ? this.lead.leadAt(performance.now()) : 0;
    const times = slotTimes(grant);
    return {
      slots: new Map(ids.map((id, i) => [id, (times[i] ?? grant.decidedAt) + lead])),
      decidedAt: grant.decidedAt,
    };
  }

  /** A bulk slice of the grant decided at `decidedAt` is claimed, rendered and ready to send now. */
  ready(batch: MessageBatchV1, decidedAt: number): void {
    if (batch.lane === SendLane.Bulk) this.lead.observe(performance.now() - decidedAt);
  }

  /**
   * Tokens whose requests could not start soon enough after their slots (GRANT_FRESH_MS in
   * ProviderExchangeService: slow claim, busy event loop) are given back and taken again, so that sends delayed together do not reach the provider
   * bunched in one second. Giving back keeps the credential's rate whole: dropping stale grants cost
   * half of it when claims were slow (measured: 94% of grants went stale with the database under
   * load). At shutdown the claimed messages go as they are. Resolves to the new slots, or undefined
   * when the tokens did not come by `deadline` (the claim's window): what came is given back, and the
   * messages must not go now.
   */
  async retake(
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
    // Not giving back costs only tokens (as dropping the grant did); the messages still go.
    await this.giveBack(batch, credential, count, 'Stale tokens could not be given back');
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
        if (got > 0) await this.giveBack(batch, credential, got, 'Unused tokens could not be given back');
        return undefined;
      }
    }
    return slots;
  }

  /**
   * AIMD learns from what the provider said. Its failure must not fail the batch: the messages are
   * sent and must be recorded, so it is logged and the next report carries on.
   */
  async report(credential: RateCredential, results: readonly SignalledResult[]): Promise<void> {
    try {
      await this.rateLimit.report(credential, sendSignalsOf(results));
    } catch (error: unknown) {
      const { credentialId } = credential;
      this.logger.error({ credentialId, err: error }, 'Reporting send outcomes to AIMD failed');
    }
  }

  /** Gives `count` tokens back; a failure is logged with `failed` (it costs only tokens). */
  private async giveBack(
    batch: MessageBatchV1,
    credential: LoadedCredential,
    count: number,
    failed: string,
  ): Promise<void> {
    await this.rateLimit
      .giveBack(this.tokenRequest(batch, credential, count), count)
      .catch((error: unknown) => {
        this.logger.warn({ err: error, credentialId: credential.id }, failed);
      });
  }

  private tokenRequest(batch: MessageBatchV1, credential: LoadedCredential, want: number): AcquireRequest {
    const ceiling = this.withHeadroom(credential.limits.ceiling);
    return {
      credentialId: credential.id,
      tenantId: batch.tenantId,
      campaignId: batch.campaignId,
      // The campaign's weight in the fair share, carried by the batch (no database read per batch).
      weight: batch.priority,
      lane: batch.lane === SendLane.Priority ? 'priority' : 'bulk',
      want,
      ceiling,
      floor: Math.min(credential.limits.floor, ceiling),
      tenantCapPerSec: credential.limits.tenantCapPerSec,
    };
  }

  /** A credential's limit less SEND_RATE_HEADROOM_RATIO, never below 1/s. */
  private withHeadroom(perSec: number): number {
    return Math.max(1, perSec * (1 - SEND_RATE_HEADROOM_RATIO));
  }
}
