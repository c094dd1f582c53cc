import { loadConfig } from '@ums/platform';
import { MessageRetentionConfig } from './message-retention.config';

const DAY_MS = 86_400_000;

describe('MessageRetentionConfig', () => {
  it('archives after 30 days, 5,000 messages a window, and keeps the archive for good by default', () => {
    expect(loadConfig(MessageRetentionConfig, {})).toMatchObject({
      MESSAGE_RETENTION_MS: 30 * DAY_MS,
      MESSAGE_ARCHIVE_WINDOW: 5_000,
      MESSAGE_ARCHIVE_PAUSE_MS: 200,
      MESSAGE_ARCHIVE_TICK_MS: 60_000,
      MESSAGE_ARCHIVE_MAX_WINDOWS: 200,
      MESSAGE_ARCHIVE_RETENTION_MS: 0,
    });
  });

  it('takes 0 (off) or at least a day for either retention', () => {
    expect(
      loadConfig(MessageRetentionConfig, {
        MESSAGE_RETENTION_MS: '0',
        MESSAGE_ARCHIVE_RETENTION_MS: String(DAY_MS),
      }),
    ).toMatchObject({ MESSAGE_RETENTION_MS: 0, MESSAGE_ARCHIVE_RETENTION_MS: DAY_MS });
  });

  it('refuses a retention under a day, or not a number, naming the variable and why', () => {
    expect(() => loadConfig(MessageRetentionConfig, { MESSAGE_RETENTION_MS: '3600000' })).toThrow(
      /MESSAGE_RETENTION_MS: must be 0 \(never archive\) or at least 86400000/,
    );
    expect(() => loadConfig(MessageRetentionConfig, { MESSAGE_ARCHIVE_RETENTION_MS: 'year' })).toThrow(
      'MESSAGE_ARCHIVE_RETENTION_MS',
    );
  });

  it('refuses windows too small or too large to be short transactions', () => {
    expect(() => loadConfig(MessageRetentionConfig, { MESSAGE_ARCHIVE_WINDOW: '10' })).toThrow(
      'MESSAGE_ARCHIVE_WINDOW',
    );
    expect(() => loadConfig(MessageRetentionConfig, { MESSAGE_ARCHIVE_WINDOW: '100000' })).toThrow(
      'MESSAGE_ARCHIVE_WINDOW',
    );
  });
});
