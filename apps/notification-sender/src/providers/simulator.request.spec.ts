import { Channel, FailureReason, Provider } from '@ums/contracts';
import { simulatorOutcomes, simulatorRequest } from './simulator.request';
import { credentialFor, message } from './test/provider-fixtures';

const withKey = credentialFor(Provider.Simulator, { baseUrl: 'http://127.0.0.1:3005' }, 'sim-key', {
  id: 'cred_sim',
});
const withoutKey = credentialFor(Provider.Simulator, { baseUrl: 'http://127.0.0.1:3005' }, undefined, {
  id: 'cred_sim',
});

describe('simulatorRequest', () => {
  it('sends messages of every channel with our ids, text or template as text', () => {
    const { request, refused } = simulatorRequest(withKey, [
      message('1', Channel.Sms, '+4915100001', { text: 'hello' }),
      message('2', Channel.WhatsApp, '+4915100002', {
        templateName: 'order',
        templateParameters: ['Ann', '7'],
      }),
      message('3', Channel.Email, 'a@b.c', { subject: 's', text: 'mail' }),
      message('4', Channel.Sms, '+4915100004', {}),
    ]);
    expect(request?.path).toBe('/sim/v1/messages');
    expect(request?.headers).toEqual({ 'content-type': 'application/json', authorization: 'Bearer sim-key' });
    expect(JSON.parse(request?.body ?? '')).toEqual({
      credentialId: 'cred_sim',
      messages: [
        { messageId: '1', to: '+4915100001', channel: 'sms', text: 'hello' },
        { messageId: '2', to: '+4915100002', channel: 'whatsapp', text: '[template order] Ann | 7' },
        { messageId: '3', to: 'a@b.c', channel: 'email', text: 'mail' },
      ],
    });
    expect(refused.get('4')?.code).toBe('CONTENT_INVALID');
  });

  it('sends no Authorization header without a key', () => {
    const { request } = simulatorRequest(withoutKey, [message('1', Channel.Sms, '+49', { text: 'x' })]);
    expect(request?.headers).toEqual({ 'content-type': 'application/json' });
  });
});

describe('simulatorOutcomes', () => {
  const messages = ['1', '2', '3', '4'].map((id) => message(id, Channel.Sms, `+49${id}`, { text: 'x' }));
  const { refused } = simulatorRequest(withKey, messages);

  it('classifies items by code and the simulator retryable flag', () => {
    const body = JSON.stringify({
      results: [
        { messageId: '1', status: 'accepted', providerMessageId: 'sim-1' },
        { messageId: '2', status: 'rejected', code: 'INVALID_NUMBER', retryable: false },
        { messageId: '3', status: 'rejected', code: 'THROTTLED', retryable: true },
      ],
    });
    expect(simulatorOutcomes(messages, refused, { status: 200, headers: {}, body }, 0)).toEqual([
      { messageId: '1', kind: 'accepted', providerMessageId: 'sim-1' },
      { messageId: '2', kind: 'permanent', reason: FailureReason.InvalidRecipient, code: 'INVALID_NUMBER' },
      {
        messageId: '3',
        kind: 'retryable',
        reason: FailureReason.Throttled,
        code: 'THROTTLED',
        congestion: true,
        ambiguous: false,
      },
      expect.objectContaining({ messageId: '4', code: 'MISSING_RESULT', ambiguous: true }),
    ]);
  });

  it('reads the simulator error shape of a whole request', () => {
    const body = JSON.stringify({
      error: { code: 'UNAUTHORIZED', message: 'Missing or invalid bearer token' },
    });
    expect(simulatorOutcomes(messages, refused, { status: 401, headers: {}, body }, 0)[0]).toEqual({
      messageId: '1',
      kind: 'permanent',
      reason: FailureReason.Rejected,
      code: 'UNAUTHORIZED',
      detail: 'Missing or invalid bearer token',
    });
  });

  it('applies a 429 with Retry-After, or a 5xx, to every item', () => {
    const throttled = simulatorOutcomes(
      messages,
      refused,
      { status: 429, headers: { 'retry-after': '2' }, body: '' },
      0,
    );
    expect(
      throttled.map((o) => [
        o.kind,
        o.kind === 'retryable' && o.retryAfterMs,
        o.kind === 'retryable' && o.congestion,
      ]),
    ).toEqual(messages.map(() => ['retryable', 2000, true]));
    const failed = simulatorOutcomes(
      messages,
      refused,
      { status: 500, headers: {}, body: '{"message":"boom"}' },
      0,
    );
    expect(
      failed.every(
        (o) => o.kind === 'retryable' && o.reason === FailureReason.ProviderError && o.detail === 'boom',
      ),
    ).toBe(true);
  });
});
