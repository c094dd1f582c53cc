import { rateLimiterFigures } from './rate-limiter-figures';

const METRICS = [
  '# HELP ums_rate_limit_rate The credential rate',
  '# TYPE ums_rate_limit_rate gauge',
  'ums_rate_limit_rate{credential="cred_a",service="notification-sender"} 4750',
  'ums_rate_limit_tokens_granted_total{credential="cred_a",lane="bulk",service="notification-sender"} 104619',
  'ums_rate_limit_tokens_granted_total{credential="cred_a",lane="priority",service="notification-sender"} 381',
  'ums_rate_limit_tokens_given_back_total{credential="cred_a",lane="bulk",service="notification-sender"} 4310',
  'ums_rate_limit_congestion_events_total{credential="cred_a",kind="throttled",service="notification-sender"} 7',
  'ums_rate_limit_congestion_events_total{credential="cred_a",kind="server_error",service="notification-sender"} 2',
  'ums_rate_limit_congestion_events_total{credential="cred_b",kind="throttled",service="notification-sender"} 1',
  'ums_rate_limit_tokens_granted_totalx{credential="cred_a"} 99',
  'nodejs_heap_size_total_bytes 1.5e8',
  '',
].join('\n');

describe('rateLimiterFigures', () => {
  it('sums the token counters over lanes and credentials, and congestion by kind', () => {
    const figures = rateLimiterFigures(METRICS);
    expect(figures.tokensGranted).toBe(105_000);
    expect(figures.tokensGivenBack).toBe(4_310);
    expect(figures.givenBackShare).toBeCloseTo(0.04105, 5);
    expect(figures.rates).toEqual([4_750]);
    expect(figures.congestion).toEqual({ throttled: 8, server_error: 2 });
  });

  it('gives zeros, and no share, for a sender that granted nothing', () => {
    expect(rateLimiterFigures('# HELP x\nprocess_cpu_seconds_total 1\n')).toEqual({
      tokensGranted: 0,
      tokensGivenBack: 0,
      givenBackShare: 0,
      rates: [],
      congestion: {},
    });
  });
});
