import { FailureReason } from '@ums/contracts';
import {
  FAILURE_CODE_MAX_LENGTH,
  FAILURE_DETAIL_MAX_LENGTH,
  failureFrom,
  ruleTable,
} from './provider-failure';

describe('failureFrom', () => {
  const retryRule = { reason: FailureReason.Throttled, retryable: true, congestion: true };
  const failRule = { reason: FailureReason.Rejected, retryable: false, congestion: true };

  it('builds a retryable failure with every fact, congestion and ambiguity defaulting to false', () => {
    expect(
      failureFrom(retryRule, { code: '429', detail: 'slow down', retryAfterMs: 2000, ambiguous: true }),
    ).toEqual({
      kind: 'retryable',
      reason: FailureReason.Throttled,
      code: '429',
      detail: 'slow down',
      retryAfterMs: 2000,
      congestion: true,
      ambiguous: true,
    });
    expect(failureFrom({ reason: FailureReason.ProviderError, retryable: true }, { code: 'X' })).toEqual({
      kind: 'retryable',
      reason: FailureReason.ProviderError,
      code: 'X',
      congestion: false,
      ambiguous: false,
    });
  });

  it('builds a permanent failure without retry facts, even when the rule or facts carry them', () => {
    expect(failureFrom(failRule, { code: 'C', detail: 'd', retryAfterMs: 5, ambiguous: true })).toEqual({
      kind: 'permanent',
      reason: FailureReason.Rejected,
      code: 'C',
      detail: 'd',
    });
    expect(failureFrom(failRule, { code: 'C' })).toEqual({
      kind: 'permanent',
      reason: FailureReason.Rejected,
      code: 'C',
    });
  });

  it('cuts codes and details to the column sizes and puts details on one line', () => {
    const failure = failureFrom(failRule, { code: 'c'.repeat(100), detail: `a\n\tb  ${'x'.repeat(2000)}` });
    expect(failure.code).toHaveLength(FAILURE_CODE_MAX_LENGTH);
    expect(failure.detail).toHaveLength(FAILURE_DETAIL_MAX_LENGTH);
    expect(failure.detail?.startsWith('a b x')).toBe(true);
    expect(failure.detail?.endsWith('...')).toBe(true);
  });
});

describe('ruleTable', () => {
  it('never finds Object.prototype members', () => {
    const table = ruleTable({ A: { reason: FailureReason.Other, retryable: false } });
    expect(table.get('A')).toBeDefined();
    for (const name of ['constructor', 'toString', '__proto__', 'hasOwnProperty']) {
      expect(table.get(name)).toBeUndefined();
    }
  });
});
