import { loadConfig } from '@ums/platform';
import { LiveConfig } from './live.config';

describe('LiveConfig', () => {
  it('serves 1000 streams a process, 20 a principal, and keeps a run 5 minutes unless told otherwise', () => {
    expect(loadConfig(LiveConfig, {})).toMatchObject({
      LIVE_MAX_CONNECTIONS: 1000,
      LIVE_MAX_CONNECTIONS_PER_PRINCIPAL: 20,
      LIVE_HISTORY_GRACE_MS: 300_000,
    });
  });

  it('refuses limits that are not positive integers, naming the variable', () => {
    expect(() => loadConfig(LiveConfig, { LIVE_MAX_CONNECTIONS: '0' })).toThrow('LIVE_MAX_CONNECTIONS');
    expect(() => loadConfig(LiveConfig, { LIVE_MAX_CONNECTIONS_PER_PRINCIPAL: 'many' })).toThrow(
      'LIVE_MAX_CONNECTIONS_PER_PRINCIPAL',
    );
    expect(() => loadConfig(LiveConfig, { LIVE_HISTORY_GRACE_MS: '-1' })).toThrow('LIVE_HISTORY_GRACE_MS');
  });

  it('refuses a per-principal limit above the process limit', () => {
    expect(() =>
      loadConfig(LiveConfig, { LIVE_MAX_CONNECTIONS: '10', LIVE_MAX_CONNECTIONS_PER_PRINCIPAL: '11' }),
    ).toThrow(/LIVE_MAX_CONNECTIONS_PER_PRINCIPAL: must be at most LIVE_MAX_CONNECTIONS/);
    expect(
      loadConfig(LiveConfig, { LIVE_MAX_CONNECTIONS: '10', LIVE_MAX_CONNECTIONS_PER_PRINCIPAL: '10' }),
    ).toMatchObject({ LIVE_MAX_CONNECTIONS_PER_PRINCIPAL: 10 });
  });
});
