import { FailureReason } from '@ums/contracts';
import { classifyErrorAnswer, httpStatusFailure, httpStatusRule } from './http-status-outcome';

describe('httpStatusRule', () => {
  it.each([
    [429, FailureReason.Throttled, true, true],
    [503, FailureReason.ProviderError, true, true],
    [504, FailureReason.Timeout, true, true],
    [408, FailureReason.Timeout, true, true],
    [500, FailureReason.ProviderError, true, false],
    [502, FailureReason.ProviderError, true, false],
    [599, FailureReason.ProviderError, true, false],
    [400, FailureReason.Rejected, false, false],
    [401, FailureReason.Rejected, false, false],
    [403, FailureReason.Rejected, false, false],
    [404, FailureReason.Rejected, false, false],
    [413, FailureReason.Rejected, false, false],
    [499, FailureReason.Rejected, false, false],
    [301, FailureReason.Other, false, false],
    [302, FailureReason.Other, false, false],
    [100, FailureReason.Other, false, false],
    [600, FailureReason.Other, false, false],
  ])('%d: %s, retryable %s, congestion %s', (status, reason, retryable, congestion) => {
    const rule = httpStatusRule(status);
    expect({ reason: rule.reason, retryable: rule.retryable, congestion: rule.congestion === true }).toEqual({
      reason,
      retryable,
      congestion,
    });
  });
});

describe('classifyErrorAnswer', () => {
  it('names the status when the provider named no code, and keeps Retry-After on retryable failures', () => {
    expect(httpStatusFailure(429, 'Too Many Requests', 7000)).toEqual({
      kind: 'retryable',
      reason: FailureReason.Throttled,
      code: 'HTTP_429',
      detail: 'Too Many Requests',
      retryAfterMs: 7000,
      congestion: true,
      ambiguous: false,
    });
    expect(httpStatusFailure(400, 'bad', 7000)).toEqual({
      kind: 'permanent',
      reason: FailureReason.Rejected,
      code: 'HTTP_400',
      detail: 'bad',
    });
  });

  it('marks a gateway timeout as possibly sent', () => {
    expect(httpStatusFailure(504)).toMatchObject({ kind: 'retryable', ambiguous: true, code: 'HTTP_504' });
    expect(httpStatusFailure(503)).toMatchObject({ kind: 'retryable', ambiguous: false });
  });

  it('keeps an unknown provider code as the code while the status decides', () => {
    expect(classifyErrorAnswer(undefined, { status: 500, code: 'E42' })).toMatchObject({
      kind: 'retryable',
      reason: FailureReason.ProviderError,
      code: 'E42',
    });
  });

  it('lets a known rule override the status', () => {
    expect(
      classifyErrorAnswer(
        { reason: FailureReason.Throttled, retryable: true, congestion: true },
        { status: 400, code: 'T' },
      ),
    ).toMatchObject({ kind: 'retryable', reason: FailureReason.Throttled, congestion: true, code: 'T' });
  });
});
