import { FailureReason } from '@ums/contracts';
import type { SendResult } from './send-disposition';
import { type SignalledResult, sendSignalsOf } from './send-signals';

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

  describe('requests of several messages', () => {
    const accepted: SendResult = { kind: 'accepted', providerMessageId: 'p' };
    const throttled = retry(FailureReason.ProviderError, 'HTTP_503', true);
    const inRequest = (request: number, n: number, result: SendResult): SignalledResult[] =>
      Array.from({ length: n }, () => ({ ...result, request }));

    it('count once per request: a bulk request answered 503 is one throttled request', () => {
      const results = [
        ...inRequest(0, 100, accepted),
        ...inRequest(1, 100, throttled),
        ...inRequest(2, 100, accepted),
        ...inRequest(3, 40, accepted),
      ];
      expect(sendSignalsOf(results)).toEqual({ accepted: 3, congested: 1, errors5xx: 0, timeouts: 0 });
    });

    it('signal what most of their sent messages said, the worse on a tie', () => {
      const missing = retry(FailureReason.ProviderError, 'NO_RESULT', false);
      const timeout = retry(FailureReason.Timeout, 'UND_ERR_HEADERS_TIMEOUT', true);
      const results = [
        ...inRequest(0, 99, accepted),
        ...inRequest(0, 1, missing),
        ...inRequest(1, 1, accepted),
        ...inRequest(1, 1, timeout),
        ...inRequest(2, 3, missing),
        ...inRequest(2, 2, accepted),
      ];
      expect(sendSignalsOf(results)).toEqual({ accepted: 1, congested: 0, errors5xx: 1, timeouts: 1 });
    });

    it('leave out messages never sent, and a request with none sent', () => {
      const notSent = retry(FailureReason.Throttled, 'NOT_ATTEMPTED', true);
      const rejected: SendResult = {
        kind: 'permanent',
        reason: FailureReason.InvalidRecipient,
        code: '21211',
      };
      const results = [
        ...inRequest(0, 5, notSent),
        ...inRequest(1, 3, rejected),
        ...inRequest(2, 4, notSent),
        ...inRequest(2, 1, accepted),
        accepted,
        throttled,
      ];
      expect(sendSignalsOf(results)).toEqual({ accepted: 2, congested: 1, errors5xx: 0, timeouts: 0 });
    });
  });
});
