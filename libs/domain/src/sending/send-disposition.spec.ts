import { FailureReason } from '@ums/contracts';
import type { RetryableFailure } from '../provider-outcome/provider-failure';
import { disposeSendResult, type DispositionContext } from './send-disposition';

const TIERS = [5_000, 30_000, 120_000, 600_000];
const at = (attempts: number, extra: Partial<DispositionContext> = {}): DispositionContext => ({
  attempts,
  tierDelaysMs: TIERS,
  nowMs: 1_000_000,
  jitterRatio: 0.2,
  random: () => 0,
  ...extra,
});
const retryable = (extra: Partial<RetryableFailure> = {}): RetryableFailure => ({
  kind: 'retryable',
  reason: FailureReason.ProviderError,
  code: 'HTTP_500',
  congestion: false,
  ambiguous: false,
  ...extra,
});

describe('disposeSendResult', () => {
  it('records an accepted message as sent, with or without a provider id', () => {
    expect(disposeSendResult({ kind: 'accepted', providerMessageId: 'p1' }, at(1))).toEqual({
      action: 'sent',
      providerMessageId: 'p1',
    });
    expect(disposeSendResult({ kind: 'accepted', providerMessageId: null }, at(3))).toEqual({
      action: 'sent',
      providerMessageId: null,
    });
  });

  it('fails a permanent rejection at once, whatever the attempt', () => {
    const result = disposeSendResult(
      { kind: 'permanent', reason: FailureReason.InvalidRecipient, code: '21211', detail: 'bad number' },
      at(1),
    );
    expect(result).toEqual({
      action: 'fail',
      reason: FailureReason.InvalidRecipient,
      code: '21211',
      detail: 'bad number',
    });
  });

  it('makes an ambiguous result UNKNOWN instead of retrying it', () => {
    const result = disposeSendResult(
      retryable({ reason: FailureReason.Timeout, code: 'HTTP_504', ambiguous: true }),
      at(1),
    );
    expect(result).toEqual({ action: 'unknown', reason: FailureReason.Timeout, code: 'HTTP_504' });
  });

  it.each([
    [1, 0, 5_000],
    [2, 1, 30_000],
    [3, 2, 120_000],
    [4, 3, 600_000],
  ])('after attempt %i waits on tier %i (%i ms)', (attempts, tier, delay) => {
    expect(disposeSendResult(retryable(), at(attempts))).toEqual({
      action: 'retry',
      tier,
      dueAt: 1_000_000 + delay,
      notSent: false,
      reason: FailureReason.ProviderError,
      code: 'HTTP_500',
    });
  });

  it('is exhausted after the attempt that follows the last tier', () => {
    expect(disposeSendResult(retryable(), at(5))).toEqual({
      action: 'exhausted',
      reason: FailureReason.ProviderError,
      code: 'HTTP_500',
    });
    expect(disposeSendResult(retryable(), at(1, { tierDelaysMs: [] })).action).toBe('exhausted');
  });

  it('gives back the attempt of a message that was never sent', () => {
    for (const code of ['NOT_ATTEMPTED', 'ABORTED', 'CLAIM_WINDOW_PASSED']) {
      expect(disposeSendResult(retryable({ code }), at(1))).toMatchObject({
        action: 'retry',
        tier: 0,
        notSent: true,
      });
      expect(disposeSendResult(retryable({ code }), at(3))).toMatchObject({
        action: 'retry',
        tier: 1,
        notSent: true,
      });
      // Attempts made stay at 4 of 5: one more try is left.
      expect(disposeSendResult(retryable({ code }), at(5))).toMatchObject({ action: 'retry', tier: 3 });
    }
  });

  it('picks a tier long enough for the Retry-After and never retries before it', () => {
    const result = disposeSendResult(retryable({ retryAfterMs: 20_000 }), at(1));
    expect(result).toMatchObject({ action: 'retry', tier: 1, dueAt: 1_000_000 + 30_000 });
    const beyond = disposeSendResult(retryable({ retryAfterMs: 3_600_000 }), at(1));
    expect(beyond).toMatchObject({ action: 'retry', tier: 3, dueAt: 1_000_000 + 3_600_000 });
  });

  it('adds jitter that only lengthens the wait, up to the ratio', () => {
    const low = disposeSendResult(retryable(), at(1, { random: () => 0 }));
    const high = disposeSendResult(retryable(), at(1, { random: () => 0.999_999 }));
    expect(low).toMatchObject({ dueAt: 1_005_000 });
    expect(high).toMatchObject({ dueAt: 1_005_999 });
  });
});
