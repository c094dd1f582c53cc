import { FailureReason } from '@ums/contracts';
import { classifyMittoItem, classifyMittoRequestError, MITTO_ITEM_CODES } from './mitto-outcome';

const { InvalidRecipient, Blocked, OptedOut, Throttled, Expired, ProviderError, Rejected } = FailureReason;
type Expectation = [FailureReason, 'retryable' | 'permanent', boolean];
const R = (reason: FailureReason, congestion = false): Expectation => [reason, 'retryable', congestion];
const P = (reason: FailureReason): Expectation => [reason, 'permanent', false];

const EXPECTED: Record<string, Expectation> = {
  '1': R(ProviderError),
  '2': P(Rejected),
  '3': P(Rejected),
  '4': P(Rejected),
  '5': P(Rejected),
  '6': P(Rejected),
  '7': P(InvalidRecipient),
  '8': P(InvalidRecipient),
  THROTTLED: R(Throttled, true),
  TEMPORARY_ERROR: R(ProviderError),
  INVALID_NUMBER: P(InvalidRecipient),
  INVALID_RECIPIENT: P(InvalidRecipient),
  UNDELIVERABLE: P(InvalidRecipient),
  BLOCKED: P(Blocked),
  BLACKLISTED: P(Blocked),
  OPTED_OUT: P(OptedOut),
  UNSUBSCRIBED: P(OptedOut),
  EXPIRED: P(Expired),
  INVALID_SENDER: P(Rejected),
  INVALID_TEXT: P(Rejected),
  TEXT_TOO_LONG: P(Rejected),
  INSUFFICIENT_FUNDS: P(Rejected),
};

describe('Mitto item codes', () => {
  it('has an expectation for every code of the table', () => {
    expect(Object.keys(EXPECTED).sort()).toEqual([...MITTO_ITEM_CODES].sort());
  });

  it.each(Object.entries(EXPECTED))('%s -> %j', (code, [reason, kind, congestion]) => {
    const failure = classifyMittoItem(code, 'm');
    expect({
      kind: failure.kind,
      reason: failure.reason,
      code: failure.code,
      detail: failure.detail,
    }).toEqual({
      kind,
      reason,
      code,
      detail: 'm',
    });
    if (failure.kind === 'retryable') expect(failure.congestion).toBe(congestion);
  });

  it('treats unknown and missing codes as permanent rejections', () => {
    expect(classifyMittoItem('SOMETHING_ELSE', undefined)).toEqual({
      kind: 'permanent',
      reason: Rejected,
      code: 'SOMETHING_ELSE',
    });
    expect(classifyMittoItem(undefined, undefined)).toEqual({
      kind: 'permanent',
      reason: Rejected,
      code: 'REJECTED',
    });
    expect(classifyMittoItem('constructor', undefined)).toMatchObject({
      kind: 'permanent',
      reason: Rejected,
    });
  });

  it('classifies a failed whole request by its status', () => {
    expect(classifyMittoRequestError({ status: 429, retryAfterMs: 4000 })).toMatchObject({
      kind: 'retryable',
      reason: Throttled,
      congestion: true,
      retryAfterMs: 4000,
    });
    expect(classifyMittoRequestError({ status: 502 })).toMatchObject({
      kind: 'retryable',
      reason: ProviderError,
    });
    expect(classifyMittoRequestError({ status: 401 })).toMatchObject({ kind: 'permanent', code: 'HTTP_401' });
  });
});
