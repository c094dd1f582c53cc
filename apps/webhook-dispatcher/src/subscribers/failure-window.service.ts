import { randomBytes } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { windowStart } from '@ums/domain';
import {
  groupByHashSlot,
  isRedisCluster,
  REDIS_CLIENT,
  type RedisClient,
  UnavailableError,
} from '@ums/platform';
import { DeliveryErrorCode } from '@ums/contracts';
import { DeliveriesConfig } from '../deliveries/deliveries.config';

/**
 * Failures per subscriber in a Redis sorted set (score = time), trimmed to the sliding window
 * (seed 000). Shared by every replica; all writes of a flush go out in one pipeline (on a Redis
 * Cluster, one per hash slot, sent together).
 *
 * The window fails open: when Redis does not answer (or its connection is not up, which fails at
 * once rather than after ioredis's reconnect attempts, so write-backs are not held up), record()
 * keeps the failures here (with their times) and throws; the next record() writes them first, so a subscriber's failures are counted
 * once Redis is back and its tombstone is decided then. Kept failures are bounded: past the
 * threshold, older ones cannot change the decision, so only the newest threshold + 1 are kept.
 */
@Injectable()
export class FailureWindow {
  /** Failures per subscriber that Redis has not taken yet, oldest first. */
  private deferred = new Map<string, Failure[]>();

  constructor(
    @Inject(REDIS_CLIENT) private readonly redis: RedisClient,
    private readonly config: DeliveriesConfig,
  ) {}

  private get policy(): { threshold: number; windowMs: number } {
    return {
      threshold: this.config.WEBHOOK_FAILURE_THRESHOLD,
      windowMs: this.config.WEBHOOK_FAILURE_WINDOW_MS,
    };
  }

  /** Failures kept while Redis did not answer, waiting for the next record(). */
  get deferredCount(): number {
    let count = 0;
    for (const list of this.deferred.values()) count += list.length;
    return count;
  }

  /**
   * Adds `count` failures per subscriber (and any kept from earlier calls); returns each of those
   * subscribers' failures now in the window. When Redis fails, every failure of the call is kept
   * for the next call and the error is thrown.
   */
  async record(failures: ReadonlyMap<string, number>, now = Date.now()): Promise<Map<string, number>> {
    const times = this.takeDeferred();
    for (const [id, count] of failures) {
      const list = times.get(id) ?? [];
      // The member is made once: writing a kept failure again (after a pipeline that half
      // happened) adds nothing to the set.
      for (let i = 0; i < count; i++)
        list.push({ at: now, member: `${now}:${randomBytes(6).toString('hex')}` });
      times.set(id, list);
    }
    if (times.size === 0) return new Map();
    if (this.redis.status !== 'ready') {
      this.keep(times);
      throw new UnavailableError(
        DeliveryErrorCode.FailureWindowUnavailable,
        `Redis connection is ${this.redis.status}`,
        {
          dependency: 'redis',
        },
      );
    }
    try {
      return await this.write(times, now);
    } catch (error: unknown) {
      this.keep(times);
      throw error;
    }
  }

  async count(id: string, now = Date.now()): Promise<number> {
    return this.redis.zcount(keyOf(id), windowStart(now, this.policy), '+inf');
  }

  async clear(id: string): Promise<void> {
    this.deferred.delete(id);
    await this.redis.del(keyOf(id));
  }

  /** One pipeline (one per hash slot on a Redis Cluster, sent together); counts per subscriber. */
  private async write(times: ReadonlyMap<string, Failure[]>, now: number): Promise<Map<string, number>> {
    const groups = groupByHashSlot([...times.keys()].map(keyOf), isRedisCluster(this.redis));
    const counts = await Promise.all(groups.map((keys) => this.writeGroup(keys.map(idOf), times, now)));
    return new Map(counts.flat());
  }

  private async writeGroup(
    ids: readonly string[],
    times: ReadonlyMap<string, Failure[]>,
    now: number,
  ): Promise<[string, number][]> {
    const pipeline = this.redis.pipeline();
    for (const id of ids) {
      const key = keyOf(id);
      for (const { at, member } of times.get(id) ?? []) pipeline.zadd(key, at, member);
      pipeline.zremrangebyscore(key, '-inf', windowStart(now, this.policy));
      pipeline.zcard(key);
      pipeline.pexpire(key, this.policy.windowMs);
    }
    const results = (await pipeline.exec()) ?? [];
    const firstError = results.find(([error]) => error !== null)?.[0];
    if (firstError) throw firstError;
    const out: [string, number][] = [];
    let index = 0;
    for (const id of ids) {
      index += (times.get(id)?.length ?? 0) + 1;
      const [, value] = results[index] ?? [null, 0];
      out.push([id, Number(value)]);
      index += 2;
    }
    return out;
  }

  private takeDeferred(): Map<string, Failure[]> {
    const taken = this.deferred;
    this.deferred = new Map();
    return taken;
  }

  private keep(times: ReadonlyMap<string, Failure[]>): void {
    const bound = this.policy.threshold + 1;
    for (const [id, list] of times) {
      const merged = [...(this.deferred.get(id) ?? []), ...list].sort((a, b) => a.at - b.at);
      this.deferred.set(id, merged.slice(-bound));
    }
  }
}

interface Failure {
  readonly at: number;
  readonly member: string;
}

const KEY_PREFIX = 'ums:webhook:failures:';

/** One key per subscriber (commands on it stay in its slot; a flush's pipeline is split by slot). */
function keyOf(subscriberId: string): string {
  return `${KEY_PREFIX}${subscriberId}`;
}

function idOf(key: string): string {
  return key.slice(KEY_PREFIX.length);
}
