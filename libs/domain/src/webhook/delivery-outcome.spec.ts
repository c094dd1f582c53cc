import { classifyDeliveryResponse, parseRetryAfterMs } from './delivery-outcome';

describe('classifyDeliveryResponse', () => {
  it('treats only 2xx as delivered', () => {
    for (const status of [200, 201, 202, 204, 299]) {
      expect(classifyDeliveryResponse(status, undefined, 0)).toEqual({ kind: 'delivered', status });
    }
    for (const status of [100, 199, 301, 302, 307, 400, 404, 500, 502]) {
      expect(classifyDeliveryResponse(status, '10', 0)).toEqual({
        kind: 'failed',
        status,
        error: `HTTP ${status}`,
      });
    }
  });

  it('disables on 410', () => {
    expect(classifyDeliveryResponse(410, undefined, 0)).toEqual({ kind: 'gone', status: 410 });
  });

  it('reads Retry-After only on 429 and 503', () => {
    expect(classifyDeliveryResponse(429, '7', 0)).toEqual({
      kind: 'failed',
      status: 429,
      error: 'HTTP 429',
      retryAfterMs: 7_000,
    });
    expect(
      classifyDeliveryResponse(503, 'Wed, 21 Oct 2015 07:28:10 GMT', Date.UTC(2015, 9, 21, 7, 28, 0)),
    ).toEqual({
      kind: 'failed',
      status: 503,
      error: 'HTTP 503',
      retryAfterMs: 10_000,
    });
    expect(classifyDeliveryResponse(503, undefined, 0)).toEqual({
      kind: 'failed',
      status: 503,
      error: 'HTTP 503',
    });
  });
});

describe('parseRetryAfterMs', () => {
  it('parses seconds and dates, refuses garbage and caps at a day', () => {
    expect(parseRetryAfterMs('0', 0)).toBe(0);
    expect(parseRetryAfterMs(' 120 ', 0)).toBe(120_000);
    expect(parseRetryAfterMs('soon', 0)).toBeUndefined();
    expect(parseRetryAfterMs('-5', 0)).toBeUndefined();
    expect(parseRetryAfterMs('999999999', 0)).toBe(86_400_000);
    expect(parseRetryAfterMs('Wed, 21 Oct 2015 07:28:00 GMT', Date.UTC(2015, 9, 21, 7, 29, 0))).toBe(0);
  });
});
