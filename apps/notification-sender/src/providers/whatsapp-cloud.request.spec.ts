import { Channel, FailureReason, Provider } from '@ums/contracts';
import { credentialFor, message } from './test/provider-fixtures';
import { whatsAppOutcome, whatsAppRequest } from './whatsapp-cloud.request';

const credential = credentialFor(
  Provider.WhatsAppCloud,
  { baseUrl: 'https://graph.facebook.com', phoneNumberId: 1234567890, apiVersion: 'v21.0' },
  'EAAG-token',
);

function built(content: Parameters<typeof message>[3], channel = Channel.WhatsApp) {
  const result = whatsAppRequest(credential, message('42', channel, '+4915123456789', content));
  if (!result.ok) throw new Error(`refused: ${JSON.stringify(result.failure)}`);
  return result.request;
}

describe('whatsAppRequest', () => {
  it('builds a text message with our id as callback data', () => {
    const request = built({ text: 'Hello Ann' });
    expect(request.path).toBe('/v21.0/1234567890/messages');
    expect(request.headers).toEqual({
      authorization: 'Bearer EAAG-token',
      'content-type': 'application/json',
    });
    expect(JSON.parse(request.body)).toEqual({
      messaging_product: 'whatsapp',
      recipient_type: 'individual',
      to: '4915123456789',
      type: 'text',
      text: { body: 'Hello Ann' },
      biz_opaque_callback_data: '42',
    });
  });

  it('builds a template message with body parameters in order', () => {
    const request = built({
      templateName: 'order_ready',
      templateLanguage: 'de',
      templateParameters: ['Ann', '#17'],
    });
    expect(JSON.parse(request.body)).toEqual({
      messaging_product: 'whatsapp',
      recipient_type: 'individual',
      to: '4915123456789',
      type: 'template',
      template: {
        name: 'order_ready',
        language: { code: 'de' },
        components: [
          {
            type: 'body',
            parameters: [
              { type: 'text', text: 'Ann' },
              { type: 'text', text: '#17' },
            ],
          },
        ],
      },
      biz_opaque_callback_data: '42',
    });
  });

  it('omits components for a template without parameters and uses the default language', () => {
    const body = JSON.parse(built({ templateName: 'hello_world', templateParameters: [] }).body) as {
      template: unknown;
    };
    expect(body.template).toEqual({ name: 'hello_world', language: { code: 'en' } });
  });

  it('prefers the template when content has both a template and text', () => {
    const body = JSON.parse(built({ templateName: 't', text: 'ignored' }).body) as { type: string };
    expect(body.type).toBe('template');
  });

  it('refuses other channels and empty content without a request', () => {
    const sms = whatsAppRequest(credential, message('1', Channel.Sms, '+49151', { text: 'x' }));
    expect(sms).toEqual({
      ok: false,
      failure: {
        kind: 'permanent',
        reason: FailureReason.Rejected,
        code: 'CHANNEL_UNSUPPORTED',
        detail: expect.any(String),
      },
    });
    const empty = whatsAppRequest(credential, message('1', Channel.WhatsApp, '+49151', { text: '' }));
    expect(empty).toMatchObject({ ok: false, failure: { kind: 'permanent', code: 'CONTENT_INVALID' } });
  });

  it('keeps a number given without + as it is', () => {
    const result = whatsAppRequest(
      credential,
      message('1', Channel.WhatsApp, '4915123456789', { text: 'x' }),
    );
    expect(result.ok && (JSON.parse(result.request.body) as { to: string }).to).toBe('4915123456789');
  });
});

describe('whatsAppOutcome', () => {
  const m = message('42', Channel.WhatsApp, '+4915123456789', { text: 'x' });
  const now = Date.parse('2025-01-01T00:00:00Z');

  it('accepts a 200 with the wamid', () => {
    const body = JSON.stringify({
      messaging_product: 'whatsapp',
      contacts: [{ input: '4915123456789', wa_id: '4915123456789' }],
      messages: [{ id: 'wamid.HBgM' }],
    });
    expect(whatsAppOutcome(m, { status: 200, headers: {}, body }, now)).toEqual({
      messageId: '42',
      kind: 'accepted',
      providerMessageId: 'wamid.HBgM',
    });
  });

  it('accepts a 200 it cannot read without an id (never resend what was accepted)', () => {
    expect(whatsAppOutcome(m, { status: 200, headers: {}, body: 'ok' }, now)).toEqual({
      messageId: '42',
      kind: 'accepted',
      providerMessageId: null,
    });
  });

  it('classifies Graph API errors by code, with Retry-After', () => {
    const error = (code: number, text: string) =>
      JSON.stringify({
        error: { message: text, type: 'OAuthException', code, error_subcode: 2494055, fbtrace_id: 'A' },
      });
    expect(
      whatsAppOutcome(
        m,
        { status: 429, headers: { 'retry-after': '5' }, body: error(130429, 'Rate limit hit') },
        now,
      ),
    ).toEqual({
      messageId: '42',
      kind: 'retryable',
      reason: FailureReason.Throttled,
      code: '130429',
      detail: 'Rate limit hit',
      retryAfterMs: 5000,
      congestion: true,
      ambiguous: false,
    });
    expect(
      whatsAppOutcome(m, { status: 400, headers: {}, body: error(131026, 'Message undeliverable') }, now),
    ).toEqual({
      messageId: '42',
      kind: 'permanent',
      reason: FailureReason.InvalidRecipient,
      code: '131026',
      detail: 'Message undeliverable',
    });
  });

  it('adds error_data.details to a generic message', () => {
    const body = JSON.stringify({
      error: {
        message: '(#131000) Something went wrong',
        type: 'OAuthException',
        code: 131000,
        error_data: { messaging_product: 'whatsapp', details: 'Upstream timeout' },
        fbtrace_id: 'A',
      },
    });
    expect(whatsAppOutcome(m, { status: 500, headers: {}, body }, now)).toMatchObject({
      kind: 'retryable',
      code: '131000',
      detail: '(#131000) Something went wrong: Upstream timeout',
    });
  });

  it('falls back to the status for a body that is not a Graph error', () => {
    expect(
      whatsAppOutcome(m, { status: 502, headers: {}, body: '<html>Bad Gateway</html>' }, now),
    ).toMatchObject({
      kind: 'retryable',
      reason: FailureReason.ProviderError,
      code: 'HTTP_502',
      detail: 'HTTP 502: <html>Bad Gateway</html>',
    });
  });
});
