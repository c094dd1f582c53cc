import { loadConfig } from '@ums/platform';
import { SendingConfig } from './sending.config';
import { SEND_RATE_HEADROOM_RATIO, SEND_RETRY_JITTER_RATIO } from './send-tuning.constants';

const DAY_MS = 86_400_000;

describe('SendingConfig', () => {
  it('keeps finished-batch inbox rows 14 days unless told otherwise', () => {
    const config = loadConfig(SendingConfig, {});
    expect(config.SENDER_FINISHED_BATCH_RETENTION_MS).toBe(14 * DAY_MS);
    expect(config.SENDER_FINISHED_BATCH_PRUNE_TICK_MS).toBe(600_000);
  });

  it('takes 0 (keep forever) or a retention of at least the batches topic’s 7 days', () => {
    expect(loadConfig(SendingConfig, { SENDER_FINISHED_BATCH_RETENTION_MS: '0' })).toMatchObject({
      SENDER_FINISHED_BATCH_RETENTION_MS: 0,
    });
    expect(
      loadConfig(SendingConfig, { SENDER_FINISHED_BATCH_RETENTION_MS: String(7 * DAY_MS) }),
    ).toMatchObject({ SENDER_FINISHED_BATCH_RETENTION_MS: 7 * DAY_MS });
  });

  it('refuses a retention shorter than the batches topic keeps a batch, naming the variable and why', () => {
    expect(() => loadConfig(SendingConfig, { SENDER_FINISHED_BATCH_RETENTION_MS: String(DAY_MS) })).toThrow(
      /SENDER_FINISHED_BATCH_RETENTION_MS: must be 0 \(keep forever\) or at least 604800000/,
    );
    expect(() => loadConfig(SendingConfig, { SENDER_FINISHED_BATCH_RETENTION_MS: '-1' })).toThrow(
      'SENDER_FINISHED_BATCH_RETENTION_MS',
    );
    expect(() => loadConfig(SendingConfig, { SENDER_FINISHED_BATCH_RETENTION_MS: 'fortnight' })).toThrow(
      'SENDER_FINISHED_BATCH_RETENTION_MS',
    );
  });

  it('reads the retry jitter and the rate headroom from the code, not the environment', () => {
    const config = loadConfig(SendingConfig, {
      SENDER_RETRY_JITTER_PERCENT: '90',
      SENDER_RATE_HEADROOM_PERCENT: '20',
    });
    expect(config).not.toHaveProperty('SENDER_RETRY_JITTER_PERCENT');
    expect(config).not.toHaveProperty('SENDER_RATE_HEADROOM_PERCENT');
    expect(SEND_RETRY_JITTER_RATIO).toBeGreaterThanOrEqual(0);
    expect(SEND_RETRY_JITTER_RATIO).toBeLessThanOrEqual(1);
    expect(SEND_RATE_HEADROOM_RATIO).toBeGreaterThanOrEqual(0);
    expect(SEND_RATE_HEADROOM_RATIO).toBeLessThan(0.5);
  });
});
