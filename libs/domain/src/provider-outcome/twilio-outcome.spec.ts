import { FailureReason } from '@ums/contracts';
import { classifyTwilioError, TWILIO_ERROR_CODES } from './twilio-outcome';

const { InvalidRecipient, Blocked, OptedOut, Throttled, ProviderError, Rejected, Other } = FailureReason;
type Expectation = [FailureReason, 'retryable' | 'permanent', boolean];
const R = (reason: FailureReason, congestion = false): Expectation => [reason, 'retryable', congestion];
const P = (reason: FailureReason): Expectation => [reason, 'permanent', false];

const EXPECTED: Record<string, Expectation> = {
  '14107': R(Throttled, true),
  '20003': P(Rejected),
  '20404': P(Rejected),
  '20429': R(Throttled, true),
  '20500': R(ProviderError),
  '20503': R(ProviderError, true),
  '21211': P(InvalidRecipient),
  '21212': P(Rejected),
  '21214': P(InvalidRecipient),
  '21217': P(InvalidRecipient),
  '21401': P(InvalidRecipient),
  '21408': P(Blocked),
  '21601': P(InvalidRecipient),
  '21602': P(Rejected),
  '21603': P(Rejected),
  '21604': P(InvalidRecipient),
  '21606': P(Rejected),
  '21608': P(Rejected),
  '21609': P(Rejected),
  '21610': P(OptedOut),
  '21611': R(Throttled, true),
  '21612': P(InvalidRecipient),
  '21614': P(InvalidRecipient),
  '21617': P(Rejected),
  '21635': P(InvalidRecipient),
  '30001': R(Throttled, true),
  '30002': P(Blocked),
  '30003': P(Other),
  '30004': P(Blocked),
  '30005': P(InvalidRecipient),
  '30006': P(InvalidRecipient),
  '30007': P(Blocked),
  '30008': P(ProviderError),
  '30034': P(Blocked),
};

describe('Twilio error codes', () => {
  it('has an expectation for every code of the table', () => {
    expect(Object.keys(EXPECTED).sort()).toEqual([...TWILIO_ERROR_CODES].sort());
  });

  it.each(Object.entries(EXPECTED))('%s -> %j', (code, [reason, kind, congestion]) => {
    const failure = classifyTwilioError({ status: 400, code, message: 'm', retryAfterMs: 2000 });
    expect({ kind: failure.kind, reason: failure.reason, code: failure.code }).toEqual({
      kind,
      reason,
      code,
    });
    if (failure.kind === 'retryable') {
      expect(failure.congestion).toBe(congestion);
      expect(failure.retryAfterMs).toBe(2000);
    }
  });

  it('groups as the provider-shapes document says', () => {
    expect(classifyTwilioError({ status: 429, code: '20429' })).toMatchObject({
      kind: 'retryable',
      congestion: true,
    });
    for (const code of ['21211', '21614', '21610']) {
      expect(classifyTwilioError({ status: 400, code }).kind).toBe('permanent');
    }
    expect(classifyTwilioError({ status: 500 }).kind).toBe('retryable');
    expect(classifyTwilioError({ status: 503 })).toMatchObject({ kind: 'retryable', congestion: true });
  });

  it('falls back to the HTTP status for unknown codes, keeping the code', () => {
    expect(classifyTwilioError({ status: 400, code: '29999' })).toMatchObject({
      kind: 'permanent',
      code: '29999',
    });
    expect(classifyTwilioError({ status: 429 })).toMatchObject({
      kind: 'retryable',
      reason: Throttled,
      congestion: true,
    });
    expect(classifyTwilioError({ status: 401 })).toMatchObject({ kind: 'permanent', code: 'HTTP_401' });
  });
});
