import { Channel, FailureReason, Provider } from '@ums/contracts';
import { mittoOutcomes, mittoRequest } from './mitto.request';
import { credentialFor, message } from './test/provider-fixtures';

const credential = credentialFor(
  Provider.Mitto,
  { baseUrl: 'https://rest.mittoapi.com', from: 'ACME' },
  'mitto-key',
);
const sms = (id: string, text = `text ${id}`) => message(id, Channel.Sms, `+4915100000${id}`, { text });

describe('mittoRequest', () => {
  it('sends every sendable message in one request, each with our id as reference', () => {
    const { request, refused } = mittoRequest(credential, [
      sms('1'),
      message('2', Channel.Email, 'a@b.c', { text: 'x' }),
      message('3', Channel.Sms, '+49151', { templateName: 't' }),
      sms('4'),
    ]);
    expect(request?.path).toBe('/sms/bulk');
    expect(request?.headers).toEqual({ 'x-mitto-api-key': 'mitto-key', 'content-type': 'application/json' });
    expect(JSON.parse(request?.body ?? '')).toEqual({
      from: 'ACME',
      messages: [
        { to: '+49151000001', text: 'text 1', reference: '1' },
        { to: '+49151000004', text: 'text 4', reference: '4' },
      ],
    });
    expect([...refused.entries()].map(([id, failure]) => [id, failure.code])).toEqual([
      ['2', 'CHANNEL_UNSUPPORTED'],
      ['3', 'CONTENT_INVALID'],
    ]);
  });

  it('builds no request when nothing is sendable', () => {
    expect(
      mittoRequest(credential, [message('1', Channel.WhatsApp, '+49', { text: 'x' })]).request,
    ).toBeUndefined();
  });
});

describe('mittoOutcomes', () => {
  const messages = [sms('1'), sms('2'), sms('3'), sms('4'), sms('5')];
  const refused = mittoRequest(credential, messages).refused;

  it('classifies each item alone, in input order, whatever order the results come in', () => {
    const body = JSON.stringify({
      results: [
        { reference: '3', status: 'rejected', code: 'THROTTLED', message: 'slow down' },
        { reference: '1', status: 'accepted', id: 'm-1' },
        { reference: '2', status: 'rejected', code: 'INVALID_NUMBER', message: 'bad number' },
        { reference: '4', status: 'rejected', code: 'TEMPORARY_ERROR' },
        { reference: '1', status: 'rejected', code: 'INVALID_NUMBER' },
      ],
    });
    expect(mittoOutcomes(messages, refused, { status: 200, headers: {}, body }, 0)).toEqual([
      { messageId: '1', kind: 'accepted', providerMessageId: 'm-1' },
      {
        messageId: '2',
        kind: 'permanent',
        reason: FailureReason.InvalidRecipient,
        code: 'INVALID_NUMBER',
        detail: 'bad number',
      },
      {
        messageId: '3',
        kind: 'retryable',
        reason: FailureReason.Throttled,
        code: 'THROTTLED',
        detail: 'slow down',
        congestion: true,
        ambiguous: false,
      },
      {
        messageId: '4',
        kind: 'retryable',
        reason: FailureReason.ProviderError,
        code: 'TEMPORARY_ERROR',
        congestion: false,
        ambiguous: false,
      },
      // Not in the answer: maybe accepted, so retryable only as ambiguous.
      expect.objectContaining({ messageId: '5', kind: 'retryable', code: 'MISSING_RESULT', ambiguous: true }),
    ]);
  });

  it('gives every item the failure of the whole request', () => {
    const outcomes = mittoOutcomes(
      messages,
      refused,
      { status: 429, headers: { 'retry-after': '3' }, body: '' },
      0,
    );
    expect(outcomes).toHaveLength(5);
    for (const outcome of outcomes) {
      expect(outcome).toMatchObject({
        kind: 'retryable',
        reason: FailureReason.Throttled,
        congestion: true,
        retryAfterMs: 3000,
      });
    }
    expect(
      mittoOutcomes(messages, refused, { status: 401, headers: {}, body: '{"message":"bad key"}' }, 0)[0],
    ).toEqual({
      messageId: '1',
      kind: 'permanent',
      reason: FailureReason.Rejected,
      code: 'HTTP_401',
      detail: 'bad key',
    });
  });

  it('keeps the code of a whole-request error while its status decides', () => {
    const body = JSON.stringify({ code: 'TEMPORARY_ERROR', message: 'Temporary error, retry later' });
    expect(mittoOutcomes(messages, refused, { status: 503, headers: {}, body }, 0)[0]).toEqual({
      messageId: '1',
      kind: 'retryable',
      reason: FailureReason.ProviderError,
      code: 'TEMPORARY_ERROR',
      detail: 'Temporary error, retry later',
      congestion: true,
      ambiguous: false,
    });
  });

  it('treats a 200 it cannot read as possibly accepted', () => {
    for (const outcome of mittoOutcomes(messages, refused, { status: 200, headers: {}, body: 'OK' }, 0)) {
      expect(outcome).toMatchObject({
        kind: 'retryable',
        code: 'MISSING_RESULT',
        ambiguous: true,
        detail: 'HTTP 200: OK',
      });
    }
  });

  it('keeps refusals of messages that were never sent', () => {
    const mixed = [sms('1'), message('2', Channel.Email, 'a@b.c', { text: 'x' })];
    const built = mittoRequest(credential, mixed);
    const body = JSON.stringify({ results: [{ reference: '1', status: 'accepted', id: 'm-1' }] });
    expect(mittoOutcomes(mixed, built.refused, { status: 200, headers: {}, body }, 0)).toEqual([
      { messageId: '1', kind: 'accepted', providerMessageId: 'm-1' },
      expect.objectContaining({ messageId: '2', kind: 'permanent', code: 'CHANNEL_UNSUPPORTED' }),
    ]);
  });
});
