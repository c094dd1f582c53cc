import { randomBytes } from 'node:crypto';
import { setMaxListeners } from 'node:events';
import type { Cluster, Redis } from 'ioredis';
import { PinoLogger } from 'nestjs-pino';
import { InvalidInputError, MetricsRegistry } from '@ums/platform';
import { deleteTestRedisKeys, testRedisClient } from '@ums/testing';
import { rateLimitConfigOf } from './rate-limit.config';
import { RateLimitMetrics } from './rate-limit.metrics';
import { RateLimitRepository } from './rate-limit.repository';
import { type AcquireRequest, RateLimitService } from './rate-limit.service';

jest.setTimeout(60_000);

/**
 * Campaign priorities weight the fair share of a credential (real Redis, two limiter replicas with
 * their own connections, as two senders would have): tokens granted are counted per campaign while
 * every campaign asks for more than the credential gives.
 */
describe('campaign priority in the fair-share rate limiter (real Redis)', () => {
  const runPrefix = `t-rl-prio-${randomBytes(4).toString('hex')}:`;
  const clients: (Redis | Cluster)[] = [];
  const logger = new PinoLogger({ pinoHttp: { level: 'silent' } });
  let suite = 0;

  function replicas(count: number): RateLimitService[] {
    const config = rateLimitConfigOf(`${runPrefix}${++suite}:`);
    return Array.from({ length: count }, () => {
      const redis = testRedisClient({ enableAutoPipelining: true, maxRetriesPerRequest: 3 });
      clients.push(redis);
      const metrics = new RateLimitMetrics(new MetricsRegistry('notification-sender-test'));
      return new RateLimitService(new RateLimitRepository(redis, config), config, metrics, logger);
    });
  }

  afterAll(async () => {
    const redis = clients[0];
    if (redis !== undefined) await deleteTestRedisKeys(redis, `${runPrefix}*`);
    await Promise.all(clients.map((c) => c.quit()));
  });

  const bulk = (name: string): Omit<AcquireRequest, 'campaignId'> => ({
    credentialId: `cred-${name}-${randomBytes(3).toString('hex')}`,
    tenantId: `tenant-${name}`,
    lane: 'bulk',
    want: 50,
    ceiling: 300,
    floor: 300,
  });

  it('splits a credential two thirds to one third between priorities 2 and 1', async () => {
    const [one, two] = replicas(2) as [RateLimitService, RateLimitService];
    const base = bulk('split');
    // Each campaign asks from both replicas; the low one with more callers, so callers do not decide.
    const granted = await flood(
      [
        { service: one, request: { ...base, campaignId: 'high', weight: 2 }, loops: 2 },
        { service: two, request: { ...base, campaignId: 'high', weight: 2 }, loops: 2 },
        { service: one, request: { ...base, campaignId: 'low', weight: 1 }, loops: 3 },
        { service: two, request: { ...base, campaignId: 'low', weight: 1 }, loops: 3 },
      ],
      4000,
    );
    const high = granted.get('high') ?? 0;
    const low = granted.get('low') ?? 0;
    report('priorities 2 and 1 at 300/s for 4 s', { high, low, share: high / (high + low) });
    expect(high / (high + low)).toBeGreaterThanOrEqual(0.58);
    expect(high / (high + low)).toBeLessThanOrEqual(0.75);
    // The split does not cost the credential its rate: most of 4 s x 300/s is granted (the margin is
    // for a test process starved of CPU, whose callers ask late).
    expect(high + low).toBeGreaterThanOrEqual(0.8 * 300 * 4);
  });

  it('gives a lone campaign of priority 1 the whole rate', async () => {
    const [one, two] = replicas(2) as [RateLimitService, RateLimitService];
    const request = { ...bulk('alone'), campaignId: 'alone', weight: 1 };
    const granted = await flood(
      [
        { service: one, request, loops: 2 },
        { service: two, request, loops: 2 },
      ],
      3000,
    );
    const alone = granted.get('alone') ?? 0;
    report('a lone campaign of priority 1 at 300/s for 3 s', { alone });
    expect(alone).toBeGreaterThanOrEqual(0.8 * 300 * 3);
  });

  it("counts a campaign's changed priority from its next asks", async () => {
    const [one, two] = replicas(2) as [RateLimitService, RateLimitService];
    const base = bulk('change');
    const phase = (weight: number): Promise<Map<string, number>> =>
      flood(
        [
          { service: one, request: { ...base, campaignId: 'changes', weight }, loops: 2 },
          { service: two, request: { ...base, campaignId: 'stays', weight: 1 }, loops: 2 },
        ],
        2500,
      );
    const before = await phase(1);
    const after = await phase(3);
    const share = (m: Map<string, number>): number =>
      (m.get('changes') ?? 0) / ((m.get('changes') ?? 0) + (m.get('stays') ?? 0));
    report('priority 1 then 3 beside priority 1', { before: share(before), after: share(after) });
    expect(share(before)).toBeGreaterThanOrEqual(0.4);
    expect(share(before)).toBeLessThanOrEqual(0.6);
    // Weights 3 and 1: three quarters.
    expect(share(after)).toBeGreaterThanOrEqual(0.65);
    expect(share(after)).toBeLessThanOrEqual(0.88);
  });

  it('refuses a weight outside 1..10, naming the field', async () => {
    const [service] = replicas(1) as [RateLimitService];
    const request = { ...bulk('bad'), campaignId: 'bad' };
    for (const weight of [0, 11, 1.5]) {
      const error = await service.acquire({ ...request, weight }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(InvalidInputError);
      expect((error as InvalidInputError).fields.map((f) => f.field)).toEqual(['weight']);
    }
  });
});

interface Caller {
  readonly service: RateLimitService;
  readonly request: AcquireRequest;
  readonly loops: number;
}

/**
 * Callers take tokens as fast as they are granted until `durationMs` passes; resolves to the tokens
 * granted per campaign.
 */
async function flood(callers: readonly Caller[], durationMs: number): Promise<Map<string, number>> {
  const signal = AbortSignal.timeout(durationMs);
  setMaxListeners(100, signal);
  const granted = new Map<string, number>();
  await Promise.all(
    callers.flatMap((caller) =>
      Array.from({ length: caller.loops }, async () => {
        const campaignId = caller.request.campaignId as string;
        while (!signal.aborted) {
          try {
            const result = await caller.service.take(caller.request, signal);
            granted.set(campaignId, (granted.get(campaignId) ?? 0) + result.granted);
          } catch (error: unknown) {
            if (signal.aborted) return;
            throw error;
          }
        }
      }),
    ),
  );
  return granted;
}

function report(title: string, figures: Record<string, unknown>): void {
  process.stdout.write(`\n[campaign-priority] ${title}: ${JSON.stringify(figures)}\n`);
}
