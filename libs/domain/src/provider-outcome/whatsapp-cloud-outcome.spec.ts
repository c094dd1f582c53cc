import { FailureReason } from '@ums/contracts';
import { classifyWhatsAppError, WHATSAPP_ERROR_CODES, whatsAppErrorRule } from './whatsapp-cloud-outcome';

const { InvalidRecipient, Blocked, OptedOut, Throttled, Expired, ProviderError, Rejected } = FailureReason;
type Expectation = [FailureReason, 'retryable' | 'permanent', boolean];
const R = (reason: FailureReason, congestion = false): Expectation => [reason, 'retryable', congestion];
const P = (reason: FailureReason): Expectation => [reason, 'permanent', false];

// Written out independently of the table, so a changed rule fails here.
const EXPECTED: Record<string, Expectation> = {
  '0': P(Rejected),
  '1': R(ProviderError),
  '2': R(ProviderError),
  '3': P(Rejected),
  '4': R(Throttled, true),
  '10': P(Rejected),
  '100': P(Rejected),
  '190': P(Rejected),
  '200': P(Rejected),
  '368': P(Blocked),
  '80007': R(Throttled, true),
  '130429': R(Throttled, true),
  '130472': P(Rejected),
  '130497': P(Blocked),
  '131000': R(ProviderError),
  '131005': P(Rejected),
  '131008': P(Rejected),
  '131009': P(Rejected),
  '131016': R(ProviderError),
  '131021': P(InvalidRecipient),
  '131026': P(InvalidRecipient),
  '131031': P(Blocked),
  '131042': P(Rejected),
  '131045': P(Rejected),
  '131047': P(Expired),
  '131048': R(Throttled, true),
  '131049': P(Rejected),
  '131050': P(OptedOut),
  '131051': P(Rejected),
  '131052': P(Rejected),
  '131053': P(Rejected),
  '131056': R(Throttled),
  '131057': R(ProviderError),
  '132000': P(Rejected),
  '132001': P(Rejected),
  '132005': P(Rejected),
  '132007': P(Rejected),
  '132012': P(Rejected),
  '132015': P(Rejected),
  '132016': P(Rejected),
  '133004': R(ProviderError),
  '133010': P(Rejected),
  '135000': P(Rejected),
};

describe('WhatsApp Cloud API error codes', () => {
  it('has an expectation for every code of the table', () => {
    expect(Object.keys(EXPECTED).sort()).toEqual([...WHATSAPP_ERROR_CODES].sort());
  });

  it.each(Object.entries(EXPECTED))(
    '%s -> %j whatever the HTTP status',
    (code, [reason, kind, congestion]) => {
      for (const status of [400, 403, 429, 500]) {
        const failure = classifyWhatsAppError({ status, code, message: 'm', retryAfterMs: 1000 });
        expect(failure.kind).toBe(kind);
        expect(failure.reason).toBe(reason);
        expect(failure.code).toBe(code);
        expect(failure.detail).toBe('m');
        if (failure.kind === 'retryable') {
          expect(failure.congestion).toBe(congestion);
          expect(failure.retryAfterMs).toBe(1000);
          expect(failure.ambiguous).toBe(false);
        }
      }
    },
  );

  it('groups as the provider-shapes document says', () => {
    for (const code of ['130429', '131056', '80007', '131000', '1', '2']) {
      expect(classifyWhatsAppError({ status: 400, code }).kind).toBe('retryable');
    }
    for (const code of ['130429', '80007']) {
      expect(classifyWhatsAppError({ status: 429, code })).toMatchObject({ congestion: true });
    }
    for (const code of ['131026', '100', '190']) {
      expect(classifyWhatsAppError({ status: 400, code }).kind).toBe('permanent');
    }
  });

  it('treats the whole 200-299 permission range alike, and nothing else', () => {
    expect(whatsAppErrorRule('201')).toEqual(whatsAppErrorRule('299'));
    expect(whatsAppErrorRule('250')?.retryable).toBe(false);
    expect(whatsAppErrorRule('300')).toBeUndefined();
    expect(whatsAppErrorRule(' 201')).toBeUndefined();
    expect(whatsAppErrorRule('constructor')).toBeUndefined();
  });

  it('falls back to the HTTP status for unknown or missing codes', () => {
    expect(classifyWhatsAppError({ status: 500, code: '999999' })).toMatchObject({
      kind: 'retryable',
      reason: ProviderError,
      code: '999999',
    });
    expect(classifyWhatsAppError({ status: 400, code: '999999' })).toMatchObject({
      kind: 'permanent',
      code: '999999',
    });
    expect(classifyWhatsAppError({ status: 429, retryAfterMs: 3000 })).toMatchObject({
      kind: 'retryable',
      reason: Throttled,
      code: 'HTTP_429',
      congestion: true,
      retryAfterMs: 3000,
    });
    expect(classifyWhatsAppError({ status: 502 })).toMatchObject({ kind: 'retryable', code: 'HTTP_502' });
  });
});
