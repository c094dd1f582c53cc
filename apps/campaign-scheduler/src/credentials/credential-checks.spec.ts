import { Provider } from '@ums/contracts';
import { DEFAULT_PROVIDER_ENDPOINTS, ProviderEndpointPolicy } from '@ums/domain';
import { credentialProblems, endpointChangeProblems, resolveBaseUrl } from './credential-checks';

const endpoints = new ProviderEndpointPolicy({
  allowlists: DEFAULT_PROVIDER_ENDPOINTS,
  simulatorEnabled: false,
});
const whatsApp = { baseUrl: 'https://graph.facebook.com', phoneNumberId: '1065' };

function fields(check: Parameters<typeof credentialProblems>[0]): string[] {
  return credentialProblems(check, endpoints).map((problem) => problem.field);
}

describe('resolveBaseUrl', () => {
  it('fills in the fallback only when the settings name no endpoint', () => {
    expect(resolveBaseUrl({ a: 1 }, 'https://x.example')).toEqual({ a: 1, baseUrl: 'https://x.example' });
    expect(resolveBaseUrl({ baseUrl: 'https://y.example' }, 'https://x.example')).toEqual({
      baseUrl: 'https://y.example',
    });
    expect(resolveBaseUrl({ a: 1 }, undefined)).toEqual({ a: 1 });
  });
});

describe('credentialProblems', () => {
  it('accepts a complete credential', () => {
    const check = {
      provider: Provider.WhatsAppCloud,
      config: whatsApp,
      secret: { sent: 't' },
      setsVerifyToken: true,
    };
    expect(credentialProblems(check, endpoints)).toEqual([]);
    expect(fields({ ...check, secret: { stored: true } })).toEqual([]);
  });

  it('names every problem: provider, settings, endpoint, secret, verify token', () => {
    expect(
      fields({
        provider: Provider.Simulator,
        config: { baseUrl: 'http://127.0.0.1:3005' },
        secret: { stored: false },
        setsVerifyToken: true,
      }),
    ).toEqual(['provider', 'webhookVerifyToken']);
    expect(
      credentialProblems(
        {
          provider: Provider.WhatsAppCloud,
          config: { baseUrl: 'https://evil.example' },
          secret: { stored: false },
          setsVerifyToken: false,
        },
        endpoints,
      ),
    ).toEqual([
      {
        field: 'config.phoneNumberId',
        reason: 'phoneNumberId must be the numeric id of the business phone number',
      },
      {
        field: 'config.baseUrl',
        reason: "must be one of this deployment's whatsapp-cloud endpoints: https://graph.facebook.com",
      },
      { field: 'secret', reason: 'a whatsapp-cloud credential needs a secret' },
    ]);
    expect(
      fields({
        provider: Provider.Ses,
        config: { region: 'eu-west-1', fromAddress: 'a@b.example' },
        secret: { sent: 'a:b' },
        setsVerifyToken: false,
      }),
    ).toEqual(['config.baseUrl']);
    expect(
      fields({
        provider: Provider.Twilio,
        config: { baseUrl: 'nope' },
        secret: { sent: 'x' },
        setsVerifyToken: false,
      }),
    ).toEqual([
      'config.accountSid',
      'config.from',
      'config.from',
      'config.statusCallbackUrl',
      'config.statusCallbackUrl',
      'config.baseUrl',
    ]);
  });
});

describe('endpointChangeProblems', () => {
  it('asks for the secret only when the endpoint changes and none was sent', () => {
    const current = { baseUrl: 'https://api.twilio.com' };
    expect(endpointChangeProblems(current, { baseUrl: 'https://API.twilio.com/' }, false)).toEqual([]);
    expect(endpointChangeProblems(current, { baseUrl: 'https://proxy.example' }, true)).toEqual([]);
    expect(
      endpointChangeProblems(current, { baseUrl: 'https://proxy.example' }, false).map((p) => p.field),
    ).toEqual(['secret']);
    expect(
      endpointChangeProblems({}, { baseUrl: 'https://api.twilio.com' }, false).map((p) => p.field),
    ).toEqual(['secret']);
  });
});
