import { createHash } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { hashTag, REDIS_CLIENT, type RedisClient } from '@ums/platform';
import type { AimdState, AimdWindow } from '@ums/domain';
import { RateLimitConfig } from './rate-limit.config';
import type { RateLimitTuning } from './rate-limit.tuning';
import { ACQUIRE_SCRIPT, APPLY_AIMD_SCRIPT, GIVE_BACK_SCRIPT, REPORT_SCRIPT } from './rate-limit.scripts';

export type RateLane = 'bulk' | 'priority';

/** A credential and the tenant it belongs to (a credential belongs to one tenant: campaigns check it). */
export interface RateCredential {
  readonly credentialId: string;
  readonly tenantId: string;
}

export interface BucketRequest extends RateCredential {
  readonly campaignId: string;
  readonly lane: RateLane;
  readonly want: number;
  readonly ceiling: number;
  readonly floor: number;
  /** The rate a missing credential hash is created with (new credential, or state lost). */
  readonly initialRate: number;
  /** 0: no tenant cap. */
  readonly tenantCapPerSec: number;
  /** The campaign's weight in the credential's fair share (its priority, 1..10). */
  readonly weight: number;
}

export interface BucketGrant {
  readonly granted: number;
  readonly retryAfterMs: number;
  /** The credential's current AIMD rate. */
  readonly rate: number;
  /** Redis server time of the grant. */
  readonly serverTimeMs: number;
  /** Campaigns sharing the credential's bulk tokens. */
  readonly activeCampaigns: number;
  /** The credential had no state in Redis: this call created it at `initialRate`. */
  readonly fresh: boolean;
  /** When the credential's bucket is out of debt: the last granted token's slot, ms from the grant (see RateLimitTuning.aheadMs). */
  readonly sharedStartInMs: number;
  /** The same for the tenant's bucket (0 without a tenant cap). */
  readonly tenantStartInMs: number;
}

/** A credential's AIMD window as one report left it, with what the compare-and-set needs. */
export interface AimdSnapshot {
  readonly nowMs: number;
  readonly version: string;
  readonly ceiling: number;
  readonly floor: number;
  readonly state: AimdState;
  readonly window: AimdWindow;
}

export interface OutcomeCounts {
  readonly accepted: number;
  readonly congested: number;
  readonly errors5xx: number;
  readonly timeouts: number;
}

interface LoadedScript {
  readonly lua: string;
  readonly sha: string;
}

const load = (lua: string): LoadedScript => ({ lua, sha: createHash('sha1').update(lua).digest('hex') });
const ACQUIRE = load(ACQUIRE_SCRIPT);
const REPORT = load(REPORT_SCRIPT);
const APPLY = load(APPLY_AIMD_SCRIPT);
const GIVE_BACK = load(GIVE_BACK_SCRIPT);

/** Rate-limit state in Redis: one EVALSHA per call (pipelined by the shared connection); cluster-safe. */
@Injectable()
export class RateLimitRepository {
  private readonly prefix: string;
  private readonly tuning: RateLimitTuning;

  constructor(
    @Inject(REDIS_CLIENT) private readonly redis: RedisClient,
    config: RateLimitConfig,
  ) {
    this.prefix = config.RATE_LIMIT_KEY_PREFIX;
    this.tuning = config.tuning;
  }

  async acquire(r: BucketRequest): Promise<BucketGrant> {
    const credential = this.credentialKey(r);
    const reply = await this.run(
      ACQUIRE,
      [credential, `${credential}:z`, `${credential}:s`, this.tenantKey(r)],
      [
        r.lane,
        r.campaignId,
        r.want,
        r.ceiling,
        r.floor,
        r.initialRate,
        this.tuning.burstMs,
        this.tuning.activeWindowMs,
        this.tuning.priorityHoldMs,
        this.tuning.maxRetryMs,
        this.tuning.keyTtlMs,
        r.tenantCapPerSec,
        this.tuning.aheadMs,
        r.weight,
      ],
    );
    const [granted, retryAfterMs, rate, serverTimeMs, activeCampaigns, fresh, sharedStart, tenantStart] =
      reply as [number, number, string, number, number, number, string, string];
    return {
      granted,
      retryAfterMs,
      rate: Number(rate),
      serverTimeMs,
      activeCampaigns,
      fresh: fresh === 1,
      sharedStartInMs: Number(sharedStart),
      tenantStartInMs: Number(tenantStart),
    };
  }

  /** Returns unspent tokens of a grant (see GIVE_BACK_SCRIPT); resolves to the shared bucket's tokens. */
  async giveBack(
    r: Omit<BucketRequest, 'want' | 'ceiling' | 'floor' | 'initialRate' | 'weight'> & { count: number },
  ): Promise<number> {
    const credential = this.credentialKey(r);
    const reply = await this.run(
      GIVE_BACK,
      [credential, `${credential}:s`, this.tenantKey(r)],
      [r.lane, r.campaignId, r.count, this.tuning.burstMs, r.tenantCapPerSec],
    );
    return Number(reply);
  }

  /** Adds outcomes to the AIMD window; undefined when the credential has no state (nothing to adapt). */
  async report(credential: RateCredential, o: OutcomeCounts): Promise<AimdSnapshot | undefined> {
    const reply = await this.run(
      REPORT,
      [this.credentialKey(credential)],
      [o.accepted, o.congested, o.errors5xx, o.timeouts],
    );
    if (reply === null) return undefined;
    const v = reply as (string | null)[];
    // Bounds are written by every acquire; without them there is nothing to decide on.
    if (v[2] === null || v[3] === null || v[4] === null) return undefined;
    const n = (i: number): number => Number(v[i] ?? 0);
    return {
      nowMs: n(0),
      ceiling: n(2),
      floor: n(3),
      version: v[4] ?? '',
      state: { rate: n(1), windowStartMs: n(5), lastDecreaseMs: n(6) },
      window: { granted: n(7), accepted: n(8), congested: n(9), errors5xx: n(10), timeouts: n(11) },
    };
  }

  /** Compare-and-set of one decision; false when another replica applied one since `seen` was read. */
  async applyAimd(
    credential: RateCredential,
    seen: AimdSnapshot,
    rate: number,
    decreased: boolean,
  ): Promise<boolean> {
    const w = seen.window;
    const reply = await this.run(
      APPLY,
      [this.credentialKey(credential)],
      [seen.version, rate, decreased ? 1 : 0, w.granted, w.accepted, w.congested, w.errors5xx, w.timeouts],
    );
    return reply === 1;
  }

  /**
   * Every key of a tenant carries the tenant as its hash tag, so that one script's keys (the
   * credential's hash, its campaigns and shares, the tenant's bucket shared by all its credentials)
   * share a Redis Cluster slot. A credential belongs to one tenant, so its keys are found from either.
   */
  private credentialKey(c: RateCredential): string {
    return `${this.prefix}${hashTag(c.tenantId)}c:${c.credentialId}`;
  }

  private tenantKey(c: RateCredential): string {
    return `${this.prefix}${hashTag(c.tenantId)}t`;
  }

  /** EVALSHA, loading the script on the first NOSCRIPT (after a Redis restart or on a fresh server). */
  private async run(script: LoadedScript, keys: string[], args: (string | number)[]): Promise<unknown> {
    try {
      return await this.redis.evalsha(script.sha, keys.length, ...keys, ...args);
    } catch (error: unknown) {
      if (!(error instanceof Error) || !error.message.startsWith('NOSCRIPT')) throw error;
      return this.redis.eval(script.lua, keys.length, ...keys, ...args);
    }
  }
}
