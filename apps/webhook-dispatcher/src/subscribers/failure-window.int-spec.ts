import { randomBytes } from 'node:crypto';
import { loadConfig } from '@ums/platform';
import { deleteTestRedisKeys, testRedisClient } from '@ums/testing';
import { DeliveriesConfig } from '../deliveries/deliveries.config';
import { FailureWindow } from './failure-window.service';

/**
 * The failure window on real Redis (and, in the `redis-cluster` project, on a Redis Cluster, where
 * the subscribers' keys live in many hash slots and one flush is split into a pipeline per slot).
 */
describe('failure window against Redis', () => {
  const redis = testRedisClient({ maxRetriesPerRequest: 3 });
  const config = loadConfig(DeliveriesConfig, {
    WEBHOOK_FAILURE_WINDOW_MS: '60000',
    WEBHOOK_FAILURE_THRESHOLD: '5',
  });
  const run = randomBytes(4).toString('hex');

  beforeAll(async () => {
    await redis.ping();
  });

  afterAll(async () => {
    await deleteTestRedisKeys(redis, `ums:webhook:failures:fw-${run}-*`);
    await redis.quit();
  });

  it('counts each subscriber of one flush in its own window, and forgets failures past the window', async () => {
    const window = new FailureWindow(redis, config);
    const ids = Array.from({ length: 40 }, (_, i) => `fw-${run}-${i}`);
    const now = Date.now();
    const first = await window.record(new Map(ids.map((id, i) => [id, (i % 3) + 1])), now - 70_000);
    expect([...first.entries()].sort()).toEqual(ids.map((id, i) => [id, (i % 3) + 1]).sort());

    // 70 s later the first failures are out of the 60 s window: only the new ones count.
    const second = await window.record(new Map(ids.map((id) => [id, 2])), now);
    expect([...second.values()]).toEqual(ids.map(() => 2));
    expect(await window.count(ids[0] as string, now)).toBe(2);

    await window.clear(ids[0] as string);
    expect(await window.count(ids[0] as string, now)).toBe(0);
    expect(await window.count(ids[1] as string, now)).toBe(2);
  });
});
