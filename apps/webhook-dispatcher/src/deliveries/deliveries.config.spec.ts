import { loadConfig } from '@ums/platform';
import { DeliveriesConfig } from './deliveries.config';
import { WEBHOOK_REPLAY_ATTEMPTS, WEBHOOK_RETRY_JITTER_RATIO } from './delivery-tuning.constants';

describe('DeliveriesConfig', () => {
  it('has one delay per retry tier by default, and takes shorter ones from the test hook', () => {
    expect(loadConfig(DeliveriesConfig, {}).WEBHOOK_RETRY_DELAYS_MS).toEqual([
      5_000, 30_000, 120_000, 600_000, 3_600_000,
    ]);
    expect(
      loadConfig(DeliveriesConfig, { WEBHOOK_RETRY_DELAYS_MS: '200, 400,800,1600,3200' })
        .WEBHOOK_RETRY_DELAYS_MS,
    ).toEqual([200, 400, 800, 1_600, 3_200]);
  });

  it('refuses a delay list that does not match the five tiers, naming the variable', () => {
    expect(() => loadConfig(DeliveriesConfig, { WEBHOOK_RETRY_DELAYS_MS: '200,400,800,1600' })).toThrow(
      'WEBHOOK_RETRY_DELAYS_MS',
    );
    expect(() => loadConfig(DeliveriesConfig, { WEBHOOK_RETRY_DELAYS_MS: '200,,800,1600,3200' })).toThrow(
      'WEBHOOK_RETRY_DELAYS_MS',
    );
  });

  it('reads the retry jitter and the replay attempts from the code, not the environment', () => {
    const config = loadConfig(DeliveriesConfig, {
      WEBHOOK_RETRY_JITTER: '0.9',
      WEBHOOK_REPLAY_ATTEMPTS: '50',
    });
    expect(config).not.toHaveProperty('WEBHOOK_RETRY_JITTER');
    expect(config).not.toHaveProperty('WEBHOOK_REPLAY_ATTEMPTS');
    expect(WEBHOOK_RETRY_JITTER_RATIO).toBeGreaterThanOrEqual(0);
    expect(WEBHOOK_RETRY_JITTER_RATIO).toBeLessThanOrEqual(1);
    expect(Number.isInteger(WEBHOOK_REPLAY_ATTEMPTS) && WEBHOOK_REPLAY_ATTEMPTS >= 1).toBe(true);
  });
});
