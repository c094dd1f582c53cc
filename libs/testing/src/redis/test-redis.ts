/** The Redis that tests use: REDIS_URL, or the machine's local server. */
export function testRedisUrl(): string {
  return process.env['REDIS_URL'] ?? 'redis://127.0.0.1:6379/0';
}
