import { Channel, FailureReason, Provider } from '@ums/contracts';
import { credentialFor, message, TWILIO_SID } from './test/provider-fixtures';
import { twilioOutcome, twilioRequest, twilioStatusCallback } from './twilio.request';

const config = {
  baseUrl: 'https://api.twilio.com',
  accountSid: TWILIO_SID,
  from: '+15005550006',
  statusCallbackUrl: 'https://hooks.example.com/v1/callbacks/twilio',
};
const credential = credentialFor(Provider.Twilio, config, 'auth-token');

describe('twilioRequest', () => {
  it('posts a form with To, From, Body and a per-message StatusCallback, with Basic auth', () => {
    const result = twilioRequest(
      credential,
      message('42', Channel.Sms, '+4915123456789', { text: 'Hi & bye = 100%' }),
    );
    if (!result.ok) throw new Error('refused');
    expect(result.request.path).toBe(`/2010-04-01/Accounts/${TWILIO_SID}/Messages.json`);
    expect(result.request.headers).toEqual({
      authorization: `Basic ${Buffer.from(`${TWILIO_SID}:auth-token`).toString('base64')}`,
      'content-type': 'application/x-www-form-urlencoded',
    });
    expect(result.request.body).toBe(
      'To=%2B4915123456789&From=%2B15005550006&Body=Hi+%26+bye+%3D+100%25' +
        '&StatusCallback=https%3A%2F%2Fhooks.example.com%2Fv1%2Fcallbacks%2Ftwilio%3Fums_message_id%3D42',
    );
    const form = new URLSearchParams(result.request.body);
    expect(form.get('StatusCallback')).toBe(
      'https://hooks.example.com/v1/callbacks/twilio?ums_message_id=42',
    );
    expect(form.get('Body')).toBe('Hi & bye = 100%');
  });

  it('uses the messaging service instead of From when configured', () => {
    const { from: _from, ...withoutFrom } = config;
    const viaService = credentialFor(
      Provider.Twilio,
      { ...withoutFrom, messagingServiceSid: `MG${'a'.repeat(32)}` },
      't',
    );
    const result = twilioRequest(viaService, message('7', Channel.Sms, '+4915123456789', { text: 'x' }));
    const form = new URLSearchParams(result.ok ? result.request.body : '');
    expect(form.get('MessagingServiceSid')).toBe(`MG${'a'.repeat(32)}`);
    expect(form.has('From')).toBe(false);
  });

  it('prefixes both numbers with whatsapp: on the WhatsApp channel', () => {
    const result = twilioRequest(credential, message('7', Channel.WhatsApp, '+4915123456789', { text: 'x' }));
    const form = new URLSearchParams(result.ok ? result.request.body : '');
    expect(form.get('To')).toBe('whatsapp:+4915123456789');
    expect(form.get('From')).toBe('whatsapp:+15005550006');
  });

  it('appends our id to a callback URL that already has a query', () => {
    expect(twilioStatusCallback('https://h.example/cb?tenant=a', '9')).toBe(
      'https://h.example/cb?tenant=a&ums_message_id=9',
    );
  });

  it('refuses e-mail and template-only content', () => {
    expect(twilioRequest(credential, message('1', Channel.Email, 'a@b.c', { text: 'x' }))).toMatchObject({
      ok: false,
      failure: { code: 'CHANNEL_UNSUPPORTED' },
    });
    expect(
      twilioRequest(credential, message('1', Channel.Sms, '+49151', { templateName: 't' })),
    ).toMatchObject({
      ok: false,
      failure: { code: 'CONTENT_INVALID' },
    });
  });
});

describe('twilioOutcome', () => {
  const m = message('42', Channel.Sms, '+4915123456789', { text: 'x' });

  it('accepts a 201 with the message sid', () => {
    const body = JSON.stringify({ sid: 'SM0123', status: 'queued', to: '+4915123456789' });
    expect(twilioOutcome(m, { status: 201, headers: {}, body }, 0)).toEqual({
      messageId: '42',
      kind: 'accepted',
      providerMessageId: 'SM0123',
    });
  });

  it('classifies errors by code', () => {
    const error = (code: number, status: number) =>
      JSON.stringify({
        code,
        message: `error ${code}`,
        more_info: `https://www.twilio.com/docs/errors/${code}`,
        status,
      });
    expect(twilioOutcome(m, { status: 400, headers: {}, body: error(21211, 400) }, 0)).toEqual({
      messageId: '42',
      kind: 'permanent',
      reason: FailureReason.InvalidRecipient,
      code: '21211',
      detail: 'error 21211',
    });
    expect(twilioOutcome(m, { status: 400, headers: {}, body: error(21610, 400) }, 0)).toMatchObject({
      kind: 'permanent',
      reason: FailureReason.OptedOut,
    });
    expect(
      twilioOutcome(m, { status: 429, headers: { 'retry-after': '2' }, body: error(20429, 429) }, 0),
    ).toMatchObject({
      kind: 'retryable',
      reason: FailureReason.Throttled,
      congestion: true,
      retryAfterMs: 2000,
    });
  });
});
