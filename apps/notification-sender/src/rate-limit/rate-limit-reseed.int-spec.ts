import { randomBytes } from 'node:crypto';
import { MetricsRegistry } from '@ums/platform';
import { deleteTestRedisKeys, testRedisClient } from '@ums/testing';
import { PinoLogger } from 'nestjs-pino';
import { rateLimitConfigOf } from './rate-limit.config';
import { RateLimitMetrics } from './rate-limit.metrics';
import { RateLimitRepository } from './rate-limit.repository';
import { type AcquireRequest, RateLimitService } from './rate-limit.service';

/**
 * A credential's state missing from Redis is created again: at the start rate for a credential new
 * to a process, at the floor when the process had it in use (Redis restarted empty).
 */
describe('rate-limit state re-seeded when Redis lost it (real Redis)', () => {
  const prefix = `t-rl-reseed-${randomBytes(4).toString('hex')}:`;
  const redis = testRedisClient({ maxRetriesPerRequest: 3 });
  const logger = new PinoLogger({ pinoHttp: { level: 'silent' } });
  const config = rateLimitConfigOf(prefix, { aimd: { start: 'ceiling' } });

  function replica(): { service: RateLimitService; metrics: RateLimitMetrics } {
    const metrics = new RateLimitMetrics(new MetricsRegistry('notification-sender-test'));
    return {
      service: new RateLimitService(new RateLimitRepository(redis, config), config, metrics, logger),
      metrics,
    };
  }

  const request: AcquireRequest = {
    credentialId: 'cred-reseed',
    tenantId: 't',
    campaignId: 'c',
    lane: 'bulk',
    want: 5,
    ceiling: 1_000,
    floor: 40,
  };

  async function reseeded(metrics: RateLimitMetrics): Promise<number> {
    return (await metrics.stateReseeded.get()).values.reduce((sum, v) => sum + v.value, 0);
  }

  async function loseState(): Promise<void> {
    await deleteTestRedisKeys(redis, `${prefix}*`);
  }

  afterAll(async () => {
    await loseState();
    await redis.quit();
  });

  it('starts a new credential at the start rate, and one lost while in use at its floor', async () => {
    const a = replica();
    expect((await a.service.acquire(request)).rate).toBe(1_000);
    expect(await a.service.acquire(request)).toMatchObject({ rate: 1_000 });
    expect(await reseeded(a.metrics)).toBe(0);

    await loseState();
    const again = await a.service.acquire(request);
    expect(again.rate).toBe(40);
    expect(again.granted).toBeGreaterThan(0);
    expect(await redis.hmget(`${prefix}{t}c:cred-reseed`, 'rate', 'floor', 'ceil', 'ver')).toEqual([
      '40',
      '40',
      '1000',
      '0',
    ]);
    expect(await reseeded(a.metrics)).toBe(1);
    // Seeded once: the state exists again, so the next call neither re-seeds nor resets it.
    expect((await a.service.acquire(request)).rate).toBe(40);
    expect(await reseeded(a.metrics)).toBe(1);

    // A replica that never had the credential in use cannot tell a loss from a new credential.
    await loseState();
    const b = replica();
    expect((await b.service.acquire(request)).rate).toBe(1_000);
    expect(await reseeded(b.metrics)).toBe(0);
  });
});
