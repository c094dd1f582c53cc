import type { CredentialRateSecond } from '../api/api.types';
import { credentialRateColumns, MAX_CHART_SECONDS } from './credential-series';

const T0 = Date.UTC(2026, 0, 1) / 1000;

function second(offset: number, rate: number, congested = 0): CredentialRateSecond {
  return {
    at: new Date((T0 + offset) * 1000).toISOString(),
    rate,
    granted: 10,
    accepted: 10,
    congested,
    errors5xx: 0,
    timeouts: 0,
    decreases: congested > 0 ? 1 : 0,
  };
}

describe('credentialRateColumns', () => {
  it('has one entry per second, a gap in the rate and no 429s where a second has no figures', () => {
    expect(credentialRateColumns([second(0, 100), second(3, 50, 4)])).toEqual([
      [T0, T0 + 1, T0 + 2, T0 + 3],
      [100, null, null, 50],
      [0, 0, 0, 4],
    ]);
  });

  it('keeps the newest seconds of a longer series, and is empty for none', () => {
    const columns = credentialRateColumns([second(0, 1), second(MAX_CHART_SECONDS + 9, 2)]);
    expect(columns[0]).toHaveLength(MAX_CHART_SECONDS);
    expect(columns[1]?.at(-1)).toBe(2);
    expect(credentialRateColumns([])).toEqual([[], [], []]);
  });
});
