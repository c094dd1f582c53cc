import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { startRedisServer } from './redis-server';

// A server of the test's own on a free port: the machine's Redis is never touched.
describe('startRedisServer', () => {
  const dir = mkdtempSync(join(tmpdir(), 'ums-redis-'));

  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('restarts Redis empty on the same port', async () => {
    const server = await startRedisServer({ dir: join(dir, 'redis') });
    try {
      const client = new Redis(server.url, { lazyConnect: true, maxRetriesPerRequest: 1 });
      await client.connect();
      await client.set('k', 'v');
      client.disconnect();
      await server.stop();
      expect(server.running).toBe(false);
      await server.start();
      const again = new Redis(server.url, { lazyConnect: true, maxRetriesPerRequest: 1 });
      await again.connect();
      expect(await again.get('k')).toBeNull();
      again.disconnect();
    } finally {
      await server.stop();
    }
  }, 60_000);
});
