import { loadConfig } from '@ums/platform';
import { DeadLettersConfig } from './dead-letters.config';

const DAY_MS = 86_400_000;

describe('DeadLettersConfig', () => {
  it('keeps replayed dead letters 30 days and ticks every minute unless told otherwise', () => {
    expect(loadConfig(DeadLettersConfig, {})).toMatchObject({
      DEAD_LETTER_REPLAYED_RETENTION_MS: 30 * DAY_MS,
      DEAD_LETTER_MAINTENANCE_TICK_MS: 60_000,
    });
  });

  it('takes 0 (keep forever) or a retention of an hour or more', () => {
    expect(loadConfig(DeadLettersConfig, { DEAD_LETTER_REPLAYED_RETENTION_MS: '0' })).toMatchObject({
      DEAD_LETTER_REPLAYED_RETENTION_MS: 0,
    });
    expect(loadConfig(DeadLettersConfig, { DEAD_LETTER_REPLAYED_RETENTION_MS: '3600000' })).toMatchObject({
      DEAD_LETTER_REPLAYED_RETENTION_MS: 3_600_000,
    });
  });

  it('refuses a retention under an hour, negative or not a number, naming the variable and why', () => {
    expect(() => loadConfig(DeadLettersConfig, { DEAD_LETTER_REPLAYED_RETENTION_MS: '86400' })).toThrow(
      /DEAD_LETTER_REPLAYED_RETENTION_MS: must be 0 \(keep forever\) or at least 3600000 \(an hour\)/,
    );
    expect(() => loadConfig(DeadLettersConfig, { DEAD_LETTER_REPLAYED_RETENTION_MS: '-1' })).toThrow(
      'DEAD_LETTER_REPLAYED_RETENTION_MS',
    );
    expect(() => loadConfig(DeadLettersConfig, { DEAD_LETTER_REPLAYED_RETENTION_MS: 'a month' })).toThrow(
      'DEAD_LETTER_REPLAYED_RETENTION_MS',
    );
    expect(() => loadConfig(DeadLettersConfig, { DEAD_LETTER_MAINTENANCE_TICK_MS: '10' })).toThrow(
      'DEAD_LETTER_MAINTENANCE_TICK_MS',
    );
  });
});
