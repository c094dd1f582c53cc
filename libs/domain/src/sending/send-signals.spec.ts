import { FailureReason } from '@ums/contracts';
import type { SendResult } from './send-disposition';
import { sendSignalsOf } from './send-signals';

const retry = (reason: FailureReason, code: string, congestion: boolean): SendResult => ({
  kind: 'retryable',
  reason,
  code,
  congestion,
  ambiguous: false,
});

describe('sendSignalsOf', () => {
  it('counts accepted, throttled, 5xx and timeouts, and ignores the rest', () => {
    const results: SendResult[] = [
      { kind: 'accepted', providerMessageId: 'a' },
      { kind: 'accepted', providerMessageId: null },
      retry(FailureReason.Throttled, 'HTTP_429', true),
      retry(FailureReason.ProviderError, 'HTTP_503', true),
      retry(FailureReason.ProviderError, 'HTTP_500', false),
      retry(FailureReason.Timeout, 'UND_ERR_HEADERS_TIMEOUT', true),
      retry(FailureReason.NetworkError, 'ECONNREFUSED', false),
      retry(FailureReason.Throttled, 'NOT_ATTEMPTED', false),
      retry(FailureReason.Other, 'ABORTED', false),
      { kind: 'permanent', reason: FailureReason.InvalidRecipient, code: '21211' },
    ];
    expect(sendSignalsOf(results)).toEqual({ accepted: 2, congested: 2, errors5xx: 1, timeouts: 1 });
  });

  it('never counts a message that was not sent, even if its cause was congestion', () => {
    const results: SendResult[] = [{ ...retry(FailureReason.Timeout, 'NOT_ATTEMPTED', true) }];
    expect(sendSignalsOf(results)).toEqual({ accepted: 0, congested: 0, errors5xx: 0, timeouts: 0 });
  });
});
