import { loadConfig } from '@ums/platform';
import { SendingConfig } from './sending.config';

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
});
