import { Channel, FailureReason, Provider } from '@ums/contracts';
import { mittoOutcome, mittoReceiver, mittoRequest } from './mitto.request';
import type { ProviderResponse } from './provider-http.client';
import { credentialFor, message } from './test/provider-fixtures';

const credential = credentialFor(
  Provider.Mitto,
  { baseUrl: 'https://rest.mittoapi.com', from: 'ACME' },
  'mitto-key',
);
const sms = message('7', Channel.Sms, '+4915100000007', { text: 'Hallo Jürgen' });
const answer = (
  status: number,
  body: unknown,
  headers: ProviderResponse['headers'] = {},
): ProviderResponse => ({
  status,
  headers,
  body: typeof body === 'string' ? body : JSON.stringify(body),
});

describe('mittoRequest', () => {
  it('sends one SMS to POST /sms with our id as its own reference, the receiver without +', () => {
    const built = mittoRequest(credential, sms);
    if (!built.ok) throw new Error('refused');
    expect(built.request.path).toBe('/sms');
    expect(built.request.headers).toEqual({
      'x-mitto-api-key': 'mitto-key',
      'content-type': 'application/json',
    });
    expect(JSON.parse(built.request.body)).toEqual({
      from: 'ACME',
      to: '4915100000007',
      text: 'Hallo Jürgen',
      type: 'auto',
      reference: '7',
    });
  });

  it('refuses what Mitto cannot carry, before any request', () => {
    const email = mittoRequest(credential, message('1', Channel.Email, 'a@b.c', { text: 'x' }));
    const template = mittoRequest(credential, message('2', Channel.Sms, '+49151', { templateName: 't' }));
    expect(email).toMatchObject({ ok: false, failure: { kind: 'permanent', code: 'CHANNEL_UNSUPPORTED' } });
    expect(template).toMatchObject({ ok: false, failure: { kind: 'permanent', code: 'CONTENT_INVALID' } });
  });

  it('keeps a receiver that has no +', () => {
    expect(mittoReceiver('4915100000007')).toBe('4915100000007');
  });
});

describe('mittoOutcome', () => {
  it('accepts responseCode 0 with Mitto’s id', () => {
    const body = {
      id: '715118ef01aa4480bbd67324a0459b0b',
      timestamp: '2019-04-13T12:07:57.8625574Z',
      to: '4915100000007',
      responseCode: 0,
      textLength: 12,
      responseText: 'SMS sent',
    };
    expect(mittoOutcome(sms, answer(200, body), 0)).toEqual({
      messageId: '7',
      kind: 'accepted',
      providerMessageId: '715118ef01aa4480bbd67324a0459b0b',
    });
  });

  it('classifies a refusal by its responseCode: invalid receiver permanent, internal error retryable', () => {
    expect(
      mittoOutcome(sms, answer(400, { responseCode: 8, textLength: 0, responseText: 'Invalid receiver' }), 0),
    ).toEqual({
      messageId: '7',
      kind: 'permanent',
      reason: FailureReason.InvalidRecipient,
      code: '8',
      detail: 'Invalid receiver',
    });
    expect(
      mittoOutcome(sms, answer(400, { responseCode: 6, responseText: 'Invalid sender' }), 0),
    ).toMatchObject({
      kind: 'permanent',
      reason: FailureReason.Rejected,
      code: '6',
    });
    // A refusal answered 200 is still a refusal.
    expect(mittoOutcome(sms, answer(200, { responseCode: 1, responseText: 'Internal error' }), 0)).toEqual({
      messageId: '7',
      kind: 'retryable',
      reason: FailureReason.ProviderError,
      code: '1',
      detail: 'Internal error',
      congestion: false,
      ambiguous: false,
    });
  });

  it('lets the status decide for 429 and 5xx, keeping Mitto’s code', () => {
    expect(
      mittoOutcome(sms, answer(429, { responseText: 'Too many requests' }, { 'retry-after': '2' }), 0),
    ).toEqual({
      messageId: '7',
      kind: 'retryable',
      reason: FailureReason.Throttled,
      code: 'HTTP_429',
      detail: 'Too many requests',
      congestion: true,
      ambiguous: false,
      retryAfterMs: 2000,
    });
    expect(mittoOutcome(sms, answer(500, { responseCode: 1, responseText: 'Internal error' }), 0)).toEqual({
      messageId: '7',
      kind: 'retryable',
      reason: FailureReason.ProviderError,
      code: '1',
      detail: 'Internal error',
      congestion: false,
      ambiguous: false,
    });
    expect(mittoOutcome(sms, answer(503, '<html>busy</html>'), 0)).toMatchObject({
      kind: 'retryable',
      code: 'HTTP_503',
      congestion: true,
      detail: 'HTTP 503: <html>busy</html>',
    });
  });

  it('refuses permanently on an unknown key (401), by status', () => {
    expect(mittoOutcome(sms, answer(401, { responseText: 'Missing or invalid X-Mitto-API-Key' }), 0)).toEqual(
      {
        messageId: '7',
        kind: 'permanent',
        reason: FailureReason.Rejected,
        code: 'HTTP_401',
        detail: 'Missing or invalid X-Mitto-API-Key',
      },
    );
  });

  it('treats a 2xx it cannot read as possibly sent (retryable only as ambiguous)', () => {
    for (const body of ['OK', '{"id":"x"}']) {
      expect(mittoOutcome(sms, answer(200, body), 0)).toMatchObject({
        messageId: '7',
        kind: 'retryable',
        code: 'MISSING_RESULT',
        ambiguous: true,
      });
    }
  });
});
