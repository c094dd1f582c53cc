import { randomBytes } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { windowStart } from '@ums/domain';
import { Redis } from 'ioredis';
import { DeliveriesConfig } from '../deliveries/deliveries.config';

/**
 * Failures per subscriber in a Redis sorted set (score = time), trimmed to the sliding window
 * (seed 000). Shared by every replica; all writes of a flush go out in one pipeline.
 */
@Injectable()
export class FailureWindow {
  constructor(
    @Inject(Redis) private readonly redis: Redis,
    private readonly config: DeliveriesConfig,
  ) {}

  private get policy(): { threshold: number; windowMs: number } {
    return {
      threshold: this.config.WEBHOOK_FAILURE_THRESHOLD,
      windowMs: this.config.WEBHOOK_FAILURE_WINDOW_MS,
    };
  }

  /** Adds `count` failures per subscriber; returns each subscriber's failures now in the window. */
  async record(failures: ReadonlyMap<string, number>, now = Date.now()): Promise<Map<string, number>> {
    const ids = [...failures.keys()];
    if (ids.length === 0) return new Map();
    const pipeline = this.redis.pipeline();
    for (const id of ids) {
      const key = keyOf(id);
      const count = failures.get(id) ?? 0;
      for (let i = 0; i < count; i++) pipeline.zadd(key, now, `${now}:${randomBytes(6).toString('hex')}`);
      pipeline.zremrangebyscore(key, '-inf', windowStart(now, this.policy));
      pipeline.zcard(key);
      pipeline.pexpire(key, this.policy.windowMs);
    }
    const results = (await pipeline.exec()) ?? [];
    const out = new Map<string, number>();
    let index = 0;
    for (const id of ids) {
      index += (failures.get(id) ?? 0) + 1;
      const [error, value] = results[index] ?? [null, 0];
      if (error) throw error;
      out.set(id, Number(value));
      index += 2;
    }
    return out;
  }

  async count(id: string, now = Date.now()): Promise<number> {
    return this.redis.zcount(keyOf(id), windowStart(now, this.policy), '+inf');
  }

  async clear(id: string): Promise<void> {
    await this.redis.del(keyOf(id));
  }
}

function keyOf(subscriberId: string): string {
  return `ums:webhook:failures:${subscriberId}`;
}
