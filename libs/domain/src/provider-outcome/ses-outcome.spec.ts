import { FailureReason } from '@ums/contracts';
import { awsErrorName, classifySesError, SES_ERROR_NAMES } from './ses-outcome';

const { Blocked, Throttled, ProviderError, Rejected } = FailureReason;
type Expectation = [FailureReason, 'retryable' | 'permanent', boolean];
const R = (reason: FailureReason, congestion = false): Expectation => [reason, 'retryable', congestion];
const P = (reason: FailureReason): Expectation => [reason, 'permanent', false];

const EXPECTED: Record<string, Expectation> = {
  TooManyRequestsException: R(Throttled, true),
  LimitExceededException: R(Throttled),
  ThrottlingException: R(Throttled, true),
  Throttling: R(Throttled, true),
  BadRequestException: P(Rejected),
  MessageRejected: P(Rejected),
  MailFromDomainNotVerifiedException: P(Rejected),
  NotFoundException: P(Rejected),
  AccountSuspendedException: P(Blocked),
  AccountSendingPausedException: P(Blocked),
  SendingPausedException: P(Blocked),
  AccessDeniedException: P(Rejected),
  UnrecognizedClientException: P(Rejected),
  InvalidClientTokenId: P(Rejected),
  InvalidSignatureException: P(Rejected),
  SignatureDoesNotMatch: P(Rejected),
  IncompleteSignature: P(Rejected),
  MissingAuthenticationToken: P(Rejected),
  MissingAuthenticationTokenException: P(Rejected),
  ExpiredTokenException: P(Rejected),
  InternalFailure: R(ProviderError),
  InternalServerError: R(ProviderError),
  ServiceUnavailable: R(ProviderError, true),
  ServiceUnavailableException: R(ProviderError, true),
};

describe('SES v2 error types', () => {
  it('has an expectation for every error name of the table', () => {
    expect(Object.keys(EXPECTED).sort()).toEqual([...SES_ERROR_NAMES].sort());
  });

  it.each(Object.entries(EXPECTED))('%s -> %j', (name, [reason, kind, congestion]) => {
    const failure = classifySesError({ status: 400, code: name, message: 'm' });
    expect({ kind: failure.kind, reason: failure.reason, code: failure.code }).toEqual({
      kind,
      reason,
      code: name,
    });
    if (failure.kind === 'retryable') expect(failure.congestion).toBe(congestion);
  });

  it('reads namespaced and suffixed AWS error types', () => {
    expect(awsErrorName('com.amazonaws.sesv2#MessageRejected')).toBe('MessageRejected');
    expect(awsErrorName('TooManyRequestsException:http://internal.amazon.com/coral/com.amazon.coral/')).toBe(
      'TooManyRequestsException',
    );
    expect(awsErrorName('aws.ses#Throttling:http://x')).toBe('Throttling');
    expect(classifySesError({ status: 429, code: 'aws#TooManyRequestsException:x' })).toMatchObject({
      kind: 'retryable',
      congestion: true,
      code: 'TooManyRequestsException',
    });
  });

  it('groups as the provider-shapes document says', () => {
    for (const code of ['BadRequestException', 'MessageRejected', 'AccountSendingPausedException']) {
      expect(classifySesError({ status: 400, code }).kind).toBe('permanent');
    }
    expect(classifySesError({ status: 429, code: 'TooManyRequestsException' })).toMatchObject({
      congestion: true,
    });
    expect(classifySesError({ status: 500 }).kind).toBe('retryable');
  });

  it('falls back to the HTTP status for unknown or empty types', () => {
    expect(classifySesError({ status: 500, code: 'SomethingNew' })).toMatchObject({
      kind: 'retryable',
      code: 'SomethingNew',
    });
    expect(classifySesError({ status: 403, code: '' })).toMatchObject({
      kind: 'permanent',
      code: 'HTTP_403',
    });
    expect(classifySesError({ status: 429, retryAfterMs: 1000 })).toMatchObject({
      kind: 'retryable',
      retryAfterMs: 1000,
      congestion: true,
    });
  });
});
