import { attemptsOf, congestionOf, type CongestionThresholds, type SendSignals } from './congestion-signal';

const thresholds: CongestionThresholds = {
  congestedMin: 3,
  congestedRatio: 0.01,
  errorsMin: 5,
  errorsRatio: 0.1,
};
const none: SendSignals = { accepted: 0, congested: 0, errors5xx: 0, timeouts: 0 };

describe('congestion signals', () => {
  it('counts every outcome as an attempt', () => {
    expect(attemptsOf({ accepted: 7, congested: 2, errors5xx: 3, timeouts: 1 })).toBe(13);
    expect(attemptsOf(none)).toBe(0);
  });

  it('sees no congestion without attempts or with only accepted sends', () => {
    expect(congestionOf(none, thresholds)).toBeUndefined();
    expect(congestionOf({ ...none, accepted: 10_000 }, thresholds)).toBeUndefined();
  });

  it('calls throttling congestion once both its count and its share are reached', () => {
    expect(congestionOf({ ...none, accepted: 297, congested: 3 }, thresholds)).toBe('throttled');
    // Count reached, share not: 3 of 301 is under 1%.
    expect(congestionOf({ ...none, accepted: 298, congested: 3 }, thresholds)).toBeUndefined();
    // Share reached, count not.
    expect(congestionOf({ ...none, accepted: 0, congested: 2 }, thresholds)).toBeUndefined();
  });

  it('adds 5xx and timeouts together against the error threshold', () => {
    expect(congestionOf({ ...none, accepted: 45, errors5xx: 3, timeouts: 2 }, thresholds)).toBe(
      'server_error',
    );
    expect(congestionOf({ ...none, accepted: 46, errors5xx: 3, timeouts: 2 }, thresholds)).toBeUndefined();
    expect(congestionOf({ ...none, accepted: 0, errors5xx: 2, timeouts: 2 }, thresholds)).toBeUndefined();
  });

  it('names the larger of 5xx and timeouts, 5xx on a tie', () => {
    expect(congestionOf({ ...none, timeouts: 4, errors5xx: 1 }, thresholds)).toBe('timeout');
    expect(congestionOf({ ...none, timeouts: 1, errors5xx: 4 }, thresholds)).toBe('server_error');
    expect(congestionOf({ ...none, timeouts: 3, errors5xx: 3 }, thresholds)).toBe('server_error');
  });

  it('prefers throttling over errors when both cross their thresholds', () => {
    expect(congestionOf({ accepted: 10, congested: 5, errors5xx: 10, timeouts: 10 }, thresholds)).toBe(
      'throttled',
    );
  });

  it('calls a single 429 congestion when the thresholds say so', () => {
    const strict = { ...thresholds, congestedMin: 1, congestedRatio: 0 };
    expect(congestionOf({ ...none, accepted: 1_000_000, congested: 1 }, strict)).toBe('throttled');
  });
});
