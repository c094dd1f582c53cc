import { loadConfig } from '@ums/platform';
import { RateLimitConfig, rateLimitConfigOf } from './rate-limit.config';
import { RATE_LIMIT_TUNING, rateLimitTuning } from './rate-limit.tuning';

describe('RateLimitConfig', () => {
  it('reads the key prefix from the environment and the tuning from the constants only', () => {
    const config = loadConfig(RateLimitConfig, {
      RATE_LIMIT_KEY_PREFIX: 'ums:rl:staging:',
      RATE_LIMIT_BURST_MS: '250',
      RATE_LIMIT_AIMD_START: 'floor',
      tuning: '{"burstMs":1}',
    });
    expect(config.RATE_LIMIT_KEY_PREFIX).toBe('ums:rl:staging:');
    expect(config.tuning).toBe(RATE_LIMIT_TUNING);
    expect(loadConfig(RateLimitConfig, {}).RATE_LIMIT_KEY_PREFIX).toBe('ums:rl:');
  });

  it('refuses a key prefix Redis keys should not carry, naming the variable', () => {
    expect(() => loadConfig(RateLimitConfig, { RATE_LIMIT_KEY_PREFIX: 'has space' })).toThrow(
      'RATE_LIMIT_KEY_PREFIX',
    );
    expect(() => rateLimitConfigOf('')).toThrow('RATE_LIMIT_KEY_PREFIX');
  });

  it('reads how many seconds of per-second figures a replica holds unwritten, refusing 0 and non-integers', () => {
    expect(loadConfig(RateLimitConfig, {}).RATE_LIMIT_SECONDS_MAX_PENDING).toBe(600);
    expect(
      loadConfig(RateLimitConfig, { RATE_LIMIT_SECONDS_MAX_PENDING: '30' }).RATE_LIMIT_SECONDS_MAX_PENDING,
    ).toBe(30);
    for (const bad of ['0', '1.5', 'many', '86401']) {
      expect(() => loadConfig(RateLimitConfig, { RATE_LIMIT_SECONDS_MAX_PENDING: bad })).toThrow(
        'RATE_LIMIT_SECONDS_MAX_PENDING',
      );
    }
  });

  it('builds a config in code with some tuning values replaced and the others kept', () => {
    const config = rateLimitConfigOf('t:', { burstMs: 250, aimd: { intervalMs: 200, start: 'floor' } });
    expect(config.RATE_LIMIT_KEY_PREFIX).toBe('t:');
    expect(config.tuning).toEqual({
      ...RATE_LIMIT_TUNING,
      burstMs: 250,
      aimd: { ...RATE_LIMIT_TUNING.aimd, intervalMs: 200, start: 'floor' },
    });
    expect(rateLimitTuning({ aimd: { congestion: { errorsMin: 9 } } }).aimd.congestion).toEqual({
      ...RATE_LIMIT_TUNING.aimd.congestion,
      errorsMin: 9,
    });
    expect(Object.isFrozen(config)).toBe(true);
  });
});

describe('rate-limit tuning', () => {
  it('has constants within the bounds the scripts and the AIMD rule rely on', () => {
    expect(rateLimitTuning()).toEqual(RATE_LIMIT_TUNING);
    expect(RATE_LIMIT_TUNING.maxRetryMs).toBeLessThanOrEqual(RATE_LIMIT_TUNING.activeWindowMs / 2);
    expect(Object.isFrozen(RATE_LIMIT_TUNING.aimd.congestion)).toBe(true);
  });

  it.each([
    [{ burstMs: 0 }, 'burstMs'],
    [{ maxRetryMs: 600 }, 'maxRetryMs'],
    [{ keyTtlMs: 1_000 }, 'keyTtlMs'],
    [{ aimd: { decreaseFactor: 1 } }, 'aimd.decreaseFactor'],
    [{ aimd: { intervalMs: Number.NaN } }, 'aimd.intervalMs'],
    [{ aimd: { congestion: { congestedRatio: 2 } } }, 'aimd.congestion.congestedRatio'],
  ])('refuses %j, naming %s', (overrides, field) => {
    expect(() => rateLimitTuning(overrides)).toThrow(
      expect.objectContaining({
        code: 'RATE_LIMIT_TUNING_INVALID',
        fields: [expect.objectContaining({ field })],
      }),
    );
  });
});
