import { FailureReason } from '@ums/contracts';
import { KNOWN_TRANSPORT_CODES, transportFailure } from './transport-outcome';

describe('transportFailure', () => {
  // [code, reason, congestion, ambiguous (may have been sent)]
  const expected: Record<string, [FailureReason, boolean, boolean]> = {
    ECONNREFUSED: [FailureReason.NetworkError, false, false],
    ENOTFOUND: [FailureReason.NetworkError, false, false],
    EAI_AGAIN: [FailureReason.NetworkError, false, false],
    EHOSTUNREACH: [FailureReason.NetworkError, false, false],
    ENETUNREACH: [FailureReason.NetworkError, false, false],
    EHOSTDOWN: [FailureReason.NetworkError, false, false],
    UND_ERR_CONNECT_TIMEOUT: [FailureReason.Timeout, true, false],
    ETIMEDOUT: [FailureReason.Timeout, true, false],
    UND_ERR_HEADERS_TIMEOUT: [FailureReason.Timeout, true, true],
    UND_ERR_BODY_TIMEOUT: [FailureReason.Timeout, true, true],
    UND_ERR_SOCKET: [FailureReason.NetworkError, false, true],
    ECONNRESET: [FailureReason.NetworkError, false, true],
    EPIPE: [FailureReason.NetworkError, false, true],
    UND_ERR_CLOSED: [FailureReason.NetworkError, false, true],
    UND_ERR_DESTROYED: [FailureReason.NetworkError, false, true],
    UND_ERR_RES_EXCEEDED_MAX_SIZE: [FailureReason.ProviderError, false, true],
  };

  it('has an expectation for every known code', () => {
    expect([...Object.keys(expected), 'ADDRESS_NOT_PUBLIC'].sort()).toEqual(
      [...KNOWN_TRANSPORT_CODES].sort(),
    );
  });

  it('fails a connection the SSRF guard refused permanently, as never sent', () => {
    expect(transportFailure('ADDRESS_NOT_PUBLIC', '127.0.0.1 is not a public address')).toEqual({
      kind: 'permanent',
      reason: FailureReason.Rejected,
      code: 'ADDRESS_NOT_PUBLIC',
      detail: '127.0.0.1 is not a public address',
    });
  });

  it.each(Object.entries(expected))('%s is retryable: %j', (code, [reason, congestion, ambiguous]) => {
    expect(transportFailure(code, 'detail')).toEqual({
      kind: 'retryable',
      reason,
      code,
      detail: 'detail',
      congestion,
      ambiguous,
    });
  });

  it('retries unknown errors as possibly sent', () => {
    expect(transportFailure('UND_ERR_SOMETHING_NEW', 'x')).toMatchObject({
      kind: 'retryable',
      reason: FailureReason.Other,
      code: 'UND_ERR_SOMETHING_NEW',
      ambiguous: true,
      congestion: false,
    });
    expect(transportFailure(undefined, 'x')).toMatchObject({ code: 'TRANSPORT_ERROR', ambiguous: true });
    expect(transportFailure('constructor', 'x')).toMatchObject({ reason: FailureReason.Other });
  });

  it('reports our own cancellation as ABORTED, possibly sent, whatever the error', () => {
    expect(transportFailure('ECONNREFUSED', 'shutdown', true)).toEqual({
      kind: 'retryable',
      reason: FailureReason.Other,
      code: 'ABORTED',
      detail: 'shutdown',
      congestion: false,
      ambiguous: true,
    });
  });
});
