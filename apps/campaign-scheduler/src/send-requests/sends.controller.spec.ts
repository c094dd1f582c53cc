import { createHash } from 'node:crypto';
import { requestIdOf } from './sends.controller';

describe('requestIdOf', () => {
  it('is the Idempotency-Key itself up to the 128 characters of a Kafka requestId', () => {
    expect(requestIdOf('order-1001')).toBe('order-1001');
    expect(requestIdOf('k'.repeat(128))).toBe('k'.repeat(128));
  });

  it('hashes a longer key into a requestId of its own, the same for the same key', () => {
    const key = 'k'.repeat(129);
    const expected = `idk_${createHash('sha256').update(key).digest('base64url')}`;
    expect(requestIdOf(key)).toBe(expected);
    expect(expected.length).toBeLessThanOrEqual(128);
    expect(requestIdOf(`${key}x`)).not.toBe(expected);
  });

  it('gives a request without a key a new id each time', () => {
    const first = requestIdOf(undefined);
    expect(first).toMatch(/^req_[0-9A-HJKMNP-TV-Z]{26}$/);
    expect(requestIdOf(undefined)).not.toBe(first);
  });
});
